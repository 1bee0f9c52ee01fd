import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle
import UnixSignals
import Synchronization
import VSHCore
import VSHEngine
import VSHHost

/// Builds the service from values, no globals: the router, one middleware that turns errors into
/// `application/problem+json`, and one controller a resource, each given its dependencies.
/// - Parameters:
///   - configuration: the store, photos, clock, address.
///   - onListening: called once the server accepts connections, with the port it listens on.
public func buildApplication(
    _ configuration: ServerConfiguration, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    try? FileManager.default.createDirectory(
        atPath: configuration.uploadFolder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    let listening = ListeningAddress(
        configuration.publicURL
            ?? "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(configuration.port)")
    let router = Router(context: VSHRequestContext.self)
    router.middlewares.add(ClientAddressMiddleware(trusted: configuration.trustedProxies))
    router.middlewares.add(AccessLogMiddleware(structured: configuration.jsonLogs))
    router.middlewares.add(UnreadBodyMiddleware())
    if !configuration.allowedOrigins.isEmpty {
        router.middlewares.add(CORSMiddleware(origins: Set(configuration.allowedOrigins)))
    }
    router.middlewares.add(ProblemMiddleware())
    let web = WebApp(
        configuration: configuration.web, store: configuration.store, publicURL: { listening.value })
    router.middlewares.add(PageNotFoundMiddleware(app: web))
    let cache = ReadCache()
    let budget = ConnectionBudget(configuration)
    let events = LeagueEvents(
        maxListeners: budget.listeners, maxListenersPerAddress: budget.listenersPerAddress,
        relays: configuration.signals != nil)
    router.middlewares.add(AfterWriteMiddleware(cache: cache, events: events))
    let authentication = Authentication(store: configuration.store, clock: configuration.clock)
    let limiter = RateLimiter(shared: configuration.store as? any SharedRateBuckets)
    let mailer = configuration.smtp.map { Mailer(relay: $0) }
    LeagueController(
        store: configuration.store, reads: configuration.readStore ?? configuration.store, cache: cache,
        clock: configuration.clock
    )
    .add(to: router)
    let pictures = PictureCache()
    AccountsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        sessionSeconds: configuration.sessionSeconds, limiter: limiter, limits: configuration.limits,
        photos: configuration.photos, pictures: pictures
    ).add(to: router)
    CheckInsController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        clock: configuration.clock, uploads: configuration.uploadFolder, limiter: limiter,
        limits: configuration.limits, group: GroupCommit(store: configuration.store), mailer: mailer,
        events: events
    ).add(to: router)
    PasswordResetsController(
        store: configuration.store, mailer: mailer, clock: configuration.clock,
        resetSeconds: configuration.resetSeconds, publicURL: { listening.value }, limiter: limiter,
        limits: configuration.limits
    ).add(to: router)
    AvatarController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        uploads: configuration.uploadFolder, limiter: limiter, limits: configuration.limits
    ).add(to: router)
    ReviewsController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        clock: configuration.clock
    )
    .add(to: router)
    FeedController(store: configuration.store, authentication: authentication, clock: configuration.clock)
        .add(
            to: router)
    PicturesController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        folder: configuration.uploadFolder, cache: pictures, huntsFolder: configuration.huntsFolder
    ).add(to: router)
    OrganiserController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        geometry: configuration.geometry, photos: configuration.photos, uploads: configuration.uploadFolder
    ).add(to: router)
    BasemapController(huntsFolder: configuration.huntsFolder).add(to: router)
    EventController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        photos: configuration.photos, folder: configuration.uploadFolder
    )
    .add(
        to: router)
    TeamsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        limiter: limiter,
        limits: configuration.limits
    ).add(to: router)
    PositionsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        limiter: limiter, limits: configuration.limits
    ).add(to: router)
    AnnouncementsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock, events: events
    ).add(to: router)
    JoinsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        limiter: limiter,
        limits: configuration.limits, publicURL: { listening.value }
    ).add(to: router)
    events.add(to: router)
    OpenAPIDocument.add(to: router)
    web.add(to: router)
    var logger = Logger(label: "vsh")
    logger.logLevel = .info
    let counts = ConnectionCounts(maxTotal: budget.connections, maxPerAddress: budget.connectionsPerAddress)
    let (grace, rate) = (configuration.bodyGraceSeconds, configuration.minBodyBytesPerSecond)
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [
            ConnectionGuard(counts: counts, graceSeconds: grace, minBytesPerSecond: rate)
        ],
        idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))
    let early = EarlyAnswers.Settings(
        cache: cache, trusted: configuration.trustedProxies, cors: !configuration.allowedOrigins.isEmpty,
        turns: EarlyTurns(structured: configuration.jsonLogs))
    let scheme = configuration.tls == nil ? "http" : "https"
    let server: HTTPServerBuilder
    if let tls = configuration.tls?.configuration {
        // HTTPS: TLS around the same HTTP/1.1 channel (the context is made once, from the files read at start).
        server = HTTPServerBuilder { responder in
            try TLSChannel(
                EarlyAnswersChannel(
                    base: HTTP1Channel(responder: responder, configuration: http1), settings: early),
                tlsConfiguration: tls)
        }
    } else {
        server = HTTPServerBuilder { responder in
            EarlyAnswersChannel(
                base: HTTP1Channel(responder: responder, configuration: http1), settings: early)
        }
    }
    var services: [any Service] = []
    if let signals = configuration.signals {
        services.append(LeagueSignalService(signals: signals, events: events, cache: cache, logger: logger))
    }
    return Application(
        router: router,
        server: server,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: HTTPDate.serverName),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            if configuration.publicURL == nil {
                listening.value = "\(scheme)://\(configuration.host):\(port)"
            }
            await onListening(port)
        },
        logger: logger)
}

/// Runs the service until SIGTERM or SIGINT, then stops accepting and finishes what is in flight.
/// A request still running after `configuration.shutdownSeconds` (a phone that stopped sending its
/// upload halfway) is cancelled: it records nothing, and the service returns within the bound.
public func serve(
    _ configuration: ServerConfiguration, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws {
    defer { try? FileManager.default.removeItem(atPath: configuration.uploadFolder) }
    removeStaleUploads(beside: configuration.uploadFolder)
    if configuration.jsonLogs {
        LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
    } else {
        LoggingSystem.bootstrap { TextLogHandler(label: $0) }
    }
    var logger = Logger(label: "vsh")
    logger.logLevel = .info
    var services: [any Service] = []
    if let port = configuration.metricsPort {
        // Bootstrapped before the service is built, so that every metric it makes reports.
        let registry = ServiceMetrics.bootstrap()
        let host = configuration.metricsHost
        services.append(
            ServiceMetrics.application(
                host: host, port: port, registry: registry, logger: logger,
                onListening: { [logger] port in logger.info("metrics on http://\(host):\(port)/metrics") }))
    }
    // A group shuts its services down last to first: the HTTP server (its requests finish), then
    // the metrics listener, then the database clients (their connections close in order).
    services.insert(contentsOf: configuration.databaseServices, at: 0)
    services.append(buildApplication(configuration, onListening: onListening))
    var group = ServiceGroupConfiguration(
        services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    group.maximumGracefulShutdownDuration = .seconds(configuration.shutdownSeconds)
    // Cancelled requests end at once, except a check-in whose group is being written: the store
    // finishes or gives up within its busy timeout. (Past this bound the service group traps.)
    group.maximumCancellationDuration = .seconds(Int(BusyTimeout.seconds) + 5)
    do {
        try await ServiceGroup(configuration: group).run()
    } catch is CancellationError {
        // The bound passed: the requests still running were cancelled (they recorded nothing).
        logger.notice(
            "stopped: requests still running after \(configuration.shutdownSeconds) s were cancelled")
    }
}

/// How many connections and live-update streams the service holds, tied to the open-file limit:
/// every connection is a descriptor, and the database, photos and uploads need some too.
struct ConnectionBudget {
    /// Descriptors kept for the database, photo files, uploads and logs.
    static let reserved = 256
    /// Connections at most, whatever the file limit (each costs buffers as well as a descriptor).
    static let ceiling = 16_384

    let connections: Int
    let connectionsPerAddress: Int
    /// Live-update streams (`GET /v1/events`) at most: half the connections.
    let listeners: Int
    /// Live-update streams from one address: a quarter of them, so that one client cannot take
    /// them all while a venue's players behind one address still get theirs.
    let listenersPerAddress: Int

    init(_ configuration: ServerConfiguration) {
        let fromLimit = max(64, min(Self.ceiling, Self.fileLimit() - Self.reserved))
        connections = configuration.maxConnections ?? fromLimit
        connectionsPerAddress = configuration.maxConnectionsPerAddress ?? max(1, connections / 4)
        listeners = max(1, connections / 2)
        listenersPerAddress = max(1, min(connectionsPerAddress, listeners / 4))
    }

    /// The process's open-file limit, raised first to the hard limit (a systemd unit's default
    /// soft limit is 1,024, its hard limit 524,288).
    static func fileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(openFiles, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(openFiles, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    private static var openFiles: __rlimit_resource_t {
        __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    }
}

/// Removes what a server killed without its clean-up (`kill -9`, a power cut) left in the
/// temporary folder: upload folders (`vsh-uploads-PID-…`) whose process no longer runs.
func removeStaleUploads(beside folder: String) {
    let parent = (folder as NSString).deletingLastPathComponent
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
    for name in names where name.hasPrefix("vsh-uploads-") && parent + "/" + name != folder {
        let fields = name.dropFirst("vsh-uploads-".count).split(separator: "-", maxSplits: 1)
        guard let pid = fields.first.flatMap({ Int32($0) }), pid > 0 else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH {
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }
}

/// The address players reach the service at, once it is known (`--port 0` learns it on listening).
final class ListeningAddress: Sendable {
    private let storage: Mutex<String>

    init(_ initial: String) { storage = Mutex(initial) }

    var value: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
