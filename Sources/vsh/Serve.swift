import ArgumentParser
import Foundation
import VSHAccounts
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHPostGIS
import VSHServer
import VSHSpatiaLite

extension VSH {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract:
                "Run the web app and HTTP service for players' phones (accounts, hunts, check-ins, boards).",
            discussion: """
                vsh serve --port 8080        then open http://127.0.0.1:8080 in a browser
                Serves the web app at / (hunt feed, maps, check-ins with the camera and the phone's \
                position, live leaderboard, profiles, moderation at /review) and the API under /v1, \
                described by /openapi.json (limits: docs/security.md). Prints one line, \
                "listening on http://HOST:PORT" (https with --tls-cert and --tls-key), once it accepts connections (--port 0 picks a free \
                port). SIGTERM or SIGINT: stop accepting, finish what is in flight, exit 0. With \
                --tiles, the app's maps draw street tiles from that server (the only request a page \
                makes beyond vsh); without, vsh draws its own maps. With --db postgres://…, several \
                vsh serve on one database behave as one service (docs/scaling.md); each opens at most \
                VSH_PG_CONNECTIONS connections (default 8), VSH_PG_WRITERS of them writing at once \
                (default 1). A database that does not answer within VSH_BUSY_TIMEOUT seconds (default \
                10) gets 503 with Retry-After, never a hung request.
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "The address to listen on.") var host = "127.0.0.1"
        @Option(help: "The port (0: a free one).") var port = 8080
        @Option(
            help: ArgumentHelp(
                "For tests and rehearsals: every request is received at this time (RFC 3339).",
                valueName: "time"))
        var now: String?
        @Option(
            help: ArgumentHelp(
                "An SMTP relay for password resets and hunt collages (off without it).",
                valueName: "smtp://host:port"))
        var smtp: String?
        @Option(help: ArgumentHelp("The sender of vsh's e-mail.", valueName: "address"))
        var mailFrom = "vsh@localhost"
        @Option(
            help: ArgumentHelp(
                "Where players reach this service, for links in e-mail (default: the listening address).",
                valueName: "url"))
        var publicURL: String?
        @Option(
            help: ArgumentHelp(
                "A web origin allowed to call the API from a browser (repeat for more; none by default).",
                valueName: "origin"))
        var allowOrigin: [String] = []
        @Option(
            help: ArgumentHelp(
                "Check-ins a player may send a minute (from one address: ten times as many).", valueName: "n")
        )
        var checkinsPerMinute = 60
        @Option(
            help: ArgumentHelp(
                "Street tiles for the web app's maps, drawn by Leaflet (default: vsh's own SVG map, no tiles).",
                valueName: "https://tile.example.org/{z}/{x}/{y}.png"))
        var tiles: String?
        @Option(
            help: ArgumentHelp(
                "The tiles' attribution, as their server requires (for OpenStreetMap: \"© OpenStreetMap contributors\").",
                valueName: "text"))
        var tilesAttribution: String?
        @Option(
            help: ArgumentHelp(
                "The event's name, the web app's title and the share pages' (default: \"vsh hunts\").",
                valueName: "text"))
        var title: String?
        @Option(
            help: ArgumentHelp(
                "A streaming replica of the PostgreSQL --db for the public reads: hunts, leaderboards, profiles.",
                valueName: "postgres://…"))
        var readDB: String?
        @Option(
            help: ArgumentHelp(
                "Seconds a connection may take to send a request's head, pause within its body, or idle between requests.",
                valueName: "s"))
        var idleTimeout = 20
        @Option(
            help: ArgumentHelp(
                "Connections held at once (default: from the open-file limit, which vsh raises to its hard limit, at most 16384).",
                valueName: "n"))
        var maxConnections: Int?
        @Option(
            help: ArgumentHelp(
                "Connections held at once from one address (default: a quarter of --max-connections; behind a proxy, the proxy is one address).",
                valueName: "n"))
        var maxConnectionsPerAddress: Int?
        @Option(
            help: ArgumentHelp(
                "A proxy (address or CIDR range) whose Forwarded or X-Forwarded-For header names the client (repeat for more; none by default).",
                valueName: "cidr"))
        var trustProxy: [String] = []
        @Option(
            help: ArgumentHelp(
                "Serve GET /metrics (Prometheus) on this port, on its own listener (none by default; 0 picks a free one).",
                valueName: "port"))
        var metricsPort: Int?
        @Option(
            help: ArgumentHelp(
                "The metrics listener's address (loopback by default: never expose it where the public can reach it).",
                valueName: "address"))
        var metricsHost = "127.0.0.1"
        @Option(
            help: ArgumentHelp(
                "Serve HTTPS with this certificate chain (PEM, e.g. fullchain.pem); goes with --tls-key.",
                valueName: "file"))
        var tlsCert: String?
        @Option(
            help: ArgumentHelp(
                "text (a line a request) or json (one object a line, for log shippers).", valueName: "format")
        )
        var logFormat = "text"
        @Option(
            help: ArgumentHelp(
                "bcrypt's work factor for new passwords, 10 to 14: each step doubles a sign-up's CPU and a guesser's (docs/security.md).",
                valueName: "n"))
        var passwordCost = Int(Passwords.defaultCost)
        @Option(
            help: ArgumentHelp("The certificate's private key (PEM, e.g. privkey.pem).", valueName: "file"))
        var tlsKey: String?

        func validate() throws {
            for range in trustProxy where AddressRange(range) == nil {
                throw ValidationError(
                    "--trust-proxy takes an address or a CIDR range such as 127.0.0.1/32 or 10.0.0.0/8, not \"\(range)\""
                )
            }
            guard (1...3600).contains(idleTimeout) else {
                throw ValidationError("--idle-timeout takes 1 to 3600")
            }
            if let maxConnections, !(1...1_000_000).contains(maxConnections) {
                throw ValidationError("--max-connections takes 1 to 1000000")
            }
            if let maxConnectionsPerAddress, !(1...1_000_000).contains(maxConnectionsPerAddress) {
                throw ValidationError("--max-connections-per-address takes 1 to 1000000")
            }
            if let readDB {
                guard PostGISStore.isURL(readDB), store.isPostGIS else {
                    throw ValidationError(
                        "--read-db takes a postgres:// URL, and goes with a postgres:// --db")
                }
            }
            guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
            if let metricsPort {
                guard (0...65_535).contains(metricsPort) else {
                    throw ValidationError("--metrics-port takes 0 to 65535")
                }
                guard metricsPort == 0 || metricsPort != port || metricsHost != host else {
                    throw ValidationError(
                        "--metrics-port must differ from --port: metrics are never on the public port")
                }
            }
            guard (1...1_000_000).contains(checkinsPerMinute) else {
                throw ValidationError("--checkins-per-minute takes 1 to 1000000")
            }
            guard let cost = UInt8(exactly: passwordCost), Passwords.costs.contains(cost) else {
                throw ValidationError(
                    "--password-cost takes \(Passwords.costs.lowerBound) to \(Passwords.costs.upperBound)")
            }
            if let smtp, SMTPRelay(url: smtp, from: mailFrom) == nil {
                throw ValidationError("--smtp takes smtp://host or smtp://host:port")
            }
            for origin in allowOrigin {
                guard let url = URLComponents(string: origin), let scheme = url.scheme,
                    ["http", "https"].contains(scheme),
                    url.host != nil, url.path.isEmpty, url.query == nil
                else {
                    throw ValidationError("--allow-origin takes an origin such as https://hunt.example.org")
                }
            }
            guard ["text", "json"].contains(logFormat) else {
                throw ValidationError("--log-format takes text or json")
            }
            if (tlsCert == nil) != (tlsKey == nil) {
                throw ValidationError("--tls-cert and --tls-key go together")
            }
            if let tiles, !WebConfiguration.isValidTemplate(tiles) {
                throw ValidationError("--tiles takes an http(s) URL template with {z}, {x} and {y}")
            }
            if tilesAttribution != nil, tiles == nil {
                throw ValidationError("--tiles-attribution goes with --tiles")
            }
            if let title, let problem = WebConfiguration.titleProblem(title) {
                throw ValidationError("--title \(problem)")
            }
            if let publicURL, URLComponents(string: publicURL)?.host == nil {
                throw ValidationError("--public-url takes a URL such as https://hunt.example.org")
            }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                var tls: ServerTLS?
                if let tlsCert, let tlsKey {
                    do {
                        tls = try ServerTLS.load(certificate: tlsCert, key: tlsKey)
                    } catch let error as ServerTLSError {
                        throw InputError(error.description, status: .dataError)
                    }
                }
                let postGIS =
                    store.isPostGIS
                    ? try await PostGISStore.open(url: store.databasePath, hunts: store.huntsFolder) : nil
                let db: any LeagueStore
                if let postGIS {
                    db = postGIS
                } else {
                    db = try await SpatiaLiteStore.open(path: store.databasePath, hunts: store.huntsFolder)
                }
                let host = self.host
                var configuration = ServerConfiguration(
                    host: host, port: port, store: db, photos: store.photos(of: db))
                if let postGIS {
                    configuration.databaseServices.append(postGIS.service)
                    configuration.signals = postGIS
                }
                if let readDB {
                    let replica = try await PostGISStore(url: readDB, readOnly: true)
                    configuration.readStore = replica
                    configuration.databaseServices.append(replica.service)
                }
                configuration.smtp = smtp.flatMap { SMTPRelay(url: $0, from: mailFrom) }
                configuration.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
                configuration.allowedOrigins = allowOrigin
                configuration.huntsFolder = store.huntsDirectory
                configuration.geometry = try SpatiaLiteInspector.standalone()
                configuration.web.tiles = tiles
                configuration.web.attribution = tilesAttribution
                if let title { configuration.web.title = title.trimmingCharacters(in: .whitespaces) }
                configuration.idleTimeoutSeconds = idleTimeout
                Passwords.use(cost: UInt8(passwordCost))
                configuration.maxConnections = maxConnections
                configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
                configuration.trustedProxies = trustProxy.compactMap(AddressRange.init)
                configuration.metricsPort = metricsPort
                configuration.metricsHost = metricsHost
                configuration.tls = tls
                configuration.jsonLogs = logFormat == "json"
                let rate = Double(checkinsPerMinute)
                configuration.limits.checkInsPerPlayer = RateLimit(perMinute: rate, burst: rate)
                configuration.limits.checkInsPerAddress = RateLimit(perMinute: rate * 10, burst: rate * 10)
                if let now {
                    let fixed = try Clock.time(now, option: "--now")
                    configuration.clock = { fixed }
                }
                let scheme = tls == nil ? "http" : "https"
                try await serve(configuration) { port in
                    Output.line("listening on \(scheme)://\(host):\(port)")
                    Output.flush()
                }
                // The sessions' last-use stamps of the last second, which no check-in group wrote.
                try? await (db as? SpatiaLiteStore)?.flushLastUseStamps()
                return .success
            }
        }
    }
}
