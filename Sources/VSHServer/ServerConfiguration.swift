public import Foundation
public import ServiceLifecycle
public import VSHCore

/// What `vsh serve` is built from: values only, no globals.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (loopback unless the operator says otherwise).
    public var host: String
    /// The port; 0 picks a free one (the `listening on` line says which).
    public var port: Int
    /// The league's store.
    public var store: any LeagueStore
    /// A replica the public reads (hunts, leaderboards, profiles) go to (`--read-db`); nil: `store`.
    public var readStore: (any LeagueStore)?
    /// The channel to the other instances sharing the database (PostgreSQL's); nil: this instance
    /// is alone (a SpatiaLite file), and its pages hear only its own events.
    public var signals: (any LeagueSignals)?
    /// The database clients' own services (PostgreSQL's connection pools): run in the service
    /// group and shut down after the HTTP server, so that requests in flight finish first.
    public var databaseServices: [any Service] = []
    /// Where check-in photos are kept.
    public var photos: any PhotoStore
    /// The clock: "now" for received times and session expiry (tests replace it).
    public var clock: @Sendable () -> Date
    /// A private folder (0700) for uploads in progress: made by `buildApplication`, removed by `serve`
    /// when the service stops (by default a new folder under the system's temporary folder).
    public var uploadFolder: String
    /// Rate limits (429 past them).
    public var limits = RateLimits()
    /// How long a session lasts after sign-in, in seconds (30 days).
    public var sessionSeconds: TimeInterval = 30 * 24 * 3600
    /// The SMTP relay for password resets and collages (`--smtp`); nil: no e-mail.
    public var smtp: SMTPRelay?
    /// The address players reach the service at, for links in e-mail (default: the listening address).
    public var publicURL: String?
    /// Origins whose pages may call the API from a browser (`--allow-origin`); empty: none.
    public var allowedOrigins: [String] = []
    /// How long a stopping service lets requests in flight finish before cancelling them, in seconds.
    public var shutdownSeconds: Int = 7
    /// How long a password-reset token works, in seconds (1 hour).
    public var resetSeconds: TimeInterval = 3600
    /// The hunts folder, where the images hunt files name are (`--hunts`); nil: no images served.
    public var huntsFolder: String?
    /// The web app: its files and the operator's street tiles.
    public var web = WebConfiguration()
    /// How long a connection may wait for a request's head, between parts of its body, or idle
    /// between requests, in seconds; then it is closed (`--idle-timeout`).
    public var idleTimeoutSeconds = 20
    /// Once a body has taken `bodyGraceSeconds`, it must average this many bytes a second.
    public var minBodyBytesPerSecond = 1_000
    /// The time a body has before `minBodyBytesPerSecond` applies, in seconds.
    public var bodyGraceSeconds = 30
    /// Connections held at once; nil: from the open-file limit (`ConnectionBudget`).
    public var maxConnections: Int?
    /// Connections held at once from one address; nil: a quarter of `maxConnections`.
    public var maxConnectionsPerAddress: Int?
    /// Proxies that may name the client's address (`Forwarded`, `X-Forwarded-For`); none by default.
    public var trustedProxies: [AddressRange] = []
    /// The port of the metrics listener (`GET /metrics`, Prometheus); nil: no metrics.
    public var metricsPort: Int?
    /// The metrics listener's address: loopback unless the operator says otherwise.
    public var metricsHost = "127.0.0.1"
    /// HTTPS: the server's certificate chain and private key (`ServerTLS.load`); nil: plain HTTP.
    public var tls: ServerTLS?
    /// One JSON object a log line (`JSONLogHandler`) rather than text.
    public var jsonLogs = false
    /// GEOS validity, areas and overlaps, for the organisers' drafts (`vsh serve` passes
    /// SpatiaLite's); nil: the server edits no hunts (503).
    public var geometry: (any GeometryOperations & Sendable)?

    /// A configuration from its parts.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, store: any LeagueStore, photos: any PhotoStore,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.host = host
        self.port = port
        self.store = store
        self.photos = photos
        self.clock = clock
        uploadFolder =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "vsh-uploads-\(getpid())-\(UUID().uuidString)"
            )
            .path
    }
}
