public import Foundation
internal import Logging
internal import NIOCore
internal import NIOSSL
internal import PostgresNIO
public import ServiceLifecycle
import Synchronization
import VSHConfusables
public import VSHCore
import VSHHost

/// The PostGIS adapter: every store protocol of the core (`LeagueStore`, `ScoreStore`,
/// `StoreDoctor`) on PostgreSQL 15 + PostGIS 3, for several `vsh serve` processes on one league.
///
/// The schema mirrors the SpatiaLite file's (same tables, columns and view, so `vsh db copy`
/// moves rows as they are), with stops in a `geometry(MultiPolygon, 4326)` column under a GiST
/// index and `ST_Covers` deciding, as on SpatiaLite. Photos and pictures live in the database
/// (`photos`, content-addressed), reachable from every host (`PostGISPhotoStore`).
///
/// Concurrency across processes: a check-in's transaction first takes transaction-scoped
/// advisory locks on its player and on its photo's image hash (in one global order, so two
/// transactions never wait on each other in a cycle), then asks its questions: a check-in that
/// committed in any process before the lock was granted is seen, one that commits later waits.
/// Hunt syncs take the catalogue lock exclusively, check-ins share it.
public final class PostGISStore: LeagueStore {
    /// The URL with its password removed: what messages name.
    public let location: String
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>?
    /// A dry run's view: everything runs on this connection, inside the dry run's transaction.
    let pinned: PostgresConnection?
    /// Hunts as last read, with the `sync_state` generation they belong to.
    let huntCache = Mutex<(generation: String, catalogue: Catalogue)?>(nil)
    /// Every hunt as `hunts()` answers, with the generation it was read under.
    let storedHunts = Mutex<(generation: String, hunts: [StoredHunt])?>(nil)
    /// Session lookups in flight and waiting (`session(tokenHash:at:)`).
    let sessionLookups = BatchedLookups<FoundSession>()
    /// Retry-key lookups in flight and waiting (`idempotentAnswer(player:key:)`), by
    /// `GroupAnswers.slot`.
    let retryLookups = BatchedLookups<IdempotentAnswer>()
    /// Reads of the definitions' generation in flight and waiting (`hunts()`), under one key.
    let generationLookups = BatchedLookups<String>()
    /// Sessions' last-use stamps waiting for the next statement (`session(tokenHash:at:)`): the
    /// stamps that come together share one durable write.
    let lastUseStamps = BatchedLookups<Bool>()
    /// How long a query waits for a pooled connection before answering "busy" (`withConnection`).
    let connectionWait: TimeInterval
    /// How to open a connection of its own, outside the pool (the instances' channel listens on
    /// one); nil for a dry run's view.
    let direct: PostgresConnection.Configuration?

    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database`, or
    /// on this host through PostgreSQL's Unix socket, `postgres://user@/database?host=/run/postgresql`;
    /// the password may also come from `PGPASSWORD`) and brings its schema up to date; `readOnly`
    /// (a replica) only checks the schema is there. `connectionWait` bounds the wait for a pooled
    /// connection (`BusyTimeout` unless given: a process of many stores, such as a test run, may
    /// wait longer without making its child processes wait longer too).
    /// - Throws: `PostGISError` when the URL is not one, the server cannot be reached or refuses.
    public init(url: String, readOnly: Bool = false, connectionWait: TimeInterval? = nil) async throws {
        let target = try DatabaseURL(url)
        self.connectionWait = max(connectionWait ?? BusyTimeout.seconds, 1)
        location = target.redacted
        var logger = Logger(label: "vsh.postgis")
        // PostgresNIO logs queries at debug and trace; positions and hashes stay out of every log.
        logger.logLevel = .critical
        self.logger = logger
        // One connection first, so a wrong host, port, password or database name is an error
        // now (the pool would wait for a connection that never comes).
        var direct: PostgresConnection.Configuration
        do {
            let probeTLS: PostgresConnection.Configuration.TLS
            switch target.tls {
            case .disable: probeTLS = .disable
            case .prefer(let tls): probeTLS = .prefer(try NIOSSLContext(configuration: tls))
            case .require(let tls): probeTLS = .require(try NIOSSLContext(configuration: tls))
            }
            var probe =
                target.socketPath.map {
                    PostgresConnection.Configuration(
                        unixSocketPath: $0, username: target.user, password: target.password,
                        database: target.database)
                }
                ?? PostgresConnection.Configuration(
                    host: target.host, port: target.port, username: target.user, password: target.password,
                    database: target.database, tls: probeTLS)
            probe.options.connectTimeout = .seconds(10)
            probe.options.additionalStartupParameters = [("application_name", target.applicationName)]
            direct = probe
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            try await connection.closeGracefully()
        } catch {
            throw PostGISError.wrap(error, location: target.redacted)
        }
        let clientTLS: PostgresClient.Configuration.TLS
        switch target.tls {
        case .disable: clientTLS = .disable
        case .prefer(let tls): clientTLS = .prefer(tls)
        case .require(let tls): clientTLS = .require(tls)
        }
        var configuration =
            target.socketPath.map {
                PostgresClient.Configuration(
                    unixSocketPath: $0, username: target.user, password: target.password,
                    database: target.database)
            }
            ?? PostgresClient.Configuration(
                host: target.host, port: target.port, username: target.user, password: target.password,
                database: target.database, tls: clientTLS)
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = Self.poolSize
        configuration.options.connectionIdleTimeout = .seconds(60)
        // A lock held by another transaction is waited for as long as a busy SQLite file.
        // No JIT compilation: every statement of vsh's is short, and PostgreSQL compiled one whose
        // estimate crossed `jit_above_cost` for 120 ms to run it in 1 ms (the near copies' lookups).
        configuration.options.additionalStartupParameters = [
            ("lock_timeout", "\(max(Int(BusyTimeout.seconds * 1000), 1))"), ("jit", "off"),
            ("application_name", target.applicationName),
        ]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.direct = direct
        runner = Task { await client.run() }
        pinned = nil
        do {
            if readOnly {
                try await checkSchema()
            } else {
                try await migrate()
            }
        } catch {
            runner?.cancel()
            throw error
        }
    }

    /// A view of `store` whose every statement runs on `connection` (`dryRun`).
    private init(viewOf store: PostGISStore, on connection: PostgresConnection) {
        location = store.location
        client = store.client
        logger = store.logger
        runner = nil
        pinned = connection
        connectionWait = store.connectionWait
        direct = nil
    }

    deinit { runner?.cancel() }

    /// Connections per process: `VSH_PG_CONNECTIONS` (1 to 100), else 8.
    static let poolSize: Int = {
        guard let text = ProcessInfo.processInfo.environment["VSH_PG_CONNECTIONS"], let value = Int(text),
            (1...100).contains(value)
        else { return 8 }
        return value
    }()

    /// Group-commit transactions at once: `VSH_PG_WRITERS` (1 to half the pool), else 1. Each
    /// takes the advisory locks of its own players and photos, so groups of other players do not
    /// wait. One writer makes the largest groups, and a group's statements are as many whatever
    /// its size: on two shared cores one writer an instance took 30 % less CPU a check-in than
    /// two (Benchmarks/postgis.sh); more may pay off where PostgreSQL has cores of its own.
    public var concurrentGroups: Int { Self.writers }

    static let writers: Int = {
        let most = max(1, poolSize / 2)
        guard let text = ProcessInfo.processInfo.environment["VSH_PG_WRITERS"], let value = Int(text),
            value >= 1
        else { return 1 }
        return min(value, most)
    }()

    /// Whether `text` names a PostgreSQL database rather than a SpatiaLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Closes the connections.
    public func close() { runner?.cancel() }

    /// Closes the connections and returns once the client has stopped. The pool itself drops its
    /// connections without a word, so first as many leases as the pool may hold connections, all
    /// at once, each close theirs gracefully: it says goodbye with PostgreSQL's Terminate message,
    /// and the server ends its session in order instead of finding the socket gone. Held together,
    /// the leases take every connection the pool has (opening one where it has fewer, which then
    /// closes at once: at most the pool's size, once, at shutdown). One after another, a lease
    /// could be given a new connection while an idle one stayed, which the pool then dropped (two
    /// of nine in a loaded test run).
    public func closeAndWait() async {
        guard let runner else { return }
        let gate = LeaseGate(count: Self.poolSize)
        // A lease that cannot be had (the server gone) does not keep the others waiting.
        let deadline = Task {
            try? await Task.sleep(for: .seconds(BusyTimeout.seconds + 1))
            await gate.open()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.poolSize {
                group.addTask {
                    _ = try? await self.withConnection { connection in
                        await gate.arrive()
                        try? await connection.closeGracefully()
                    }
                }
            }
        }
        deadline.cancel()
        runner.cancel()
        await runner.value
    }

    /// Holds the leases of `closeAndWait` until all of them are had (or `open` is called).
    actor LeaseGate {
        private let count: Int
        private var arrived = 0
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { self.count = count }

        /// Waits until `count` leases have arrived.
        func arrive() async {
            arrived += 1
            if arrived >= count { open() }
            if isOpen { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Lets every lease go on.
        func open() {
            isOpen = true
            for waiter in waiting { waiter.resume() }
            waiting = []
        }
    }

    /// The client as a member of a service group (`vsh serve`): it runs until the group shuts
    /// down, and then closes the connections in order. Put it before the services that use the
    /// store: a group shuts its services down last to first, so the requests still running finish
    /// with their connections before these close.
    public var service: some Service { ClientService(store: self) }

    struct ClientService: Service {
        let store: PostGISStore

        func run() async throws {
            // Returns when the group shuts down, and throws when it is cancelled: either way, close.
            try? await gracefulShutdown()
            await store.closeAndWait()
        }
    }

    // MARK: running SQL

    /// Runs `work` on one pooled connection, turning driver errors into `PostGISError`s. Waiting
    /// for the connection is bounded by `BusyTimeout` (a server that went away or a pool that
    /// stays full: the pool would wait for ever), lock waits by `lock_timeout` (the same bound);
    /// past either, or when the server cannot be reached, the error is "busy" (exit 75, HTTP
    /// 503): try again. Work under way on its connection is never cut short.
    @discardableResult
    func withConnection<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        if let pinned {
            do {
                return try await work(pinned)
            } catch {
                throw PostGISError.wrap(error, location: location)
            }
        }
        let client = self.client
        let bound = connectionWait
        let leased = Flag()
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        leased.set()
                        return try await work(connection)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(bound))
                    return nil
                }
                if let first = try await group.next(), let value = first {
                    group.cancelAll()
                    return value
                }
                if !leased.isSet {
                    // No connection within the bound: stop waiting for one.
                    group.cancelAll()
                }
                do {
                    while let next = try await group.next() {
                        if let value = next { return value }
                    }
                } catch  where !Task.isCancelled && !leased.isSet {
                    // The wait for a connection was cancelled (the pool's own error).
                }
                throw PostGISError(
                    kind: .busy, message: "no connection to PostgreSQL within \(Int(bound)) s; try again",
                    location: self.location)
            }
        } catch {
            let wrapped = PostGISError.wrap(error, location: location)
            if let failure = wrapped as? PostGISError, failure.kind == .unreachable {
                // The server answered when the store opened: losing it now is worth a retry.
                throw PostGISError(kind: .busy, message: failure.message + "; try again", location: location)
            }
            throw wrapped
        }
    }

    /// Runs `work` in one transaction (READ COMMITTED): committed when it returns, rolled back
    /// when it throws (the error is the one it threw).
    @discardableResult
    func transaction<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let (logger, nested) = (self.logger, pinned != nil)
        return try await withConnection { connection in
            try await connection.query(Self.begin(nested), logger: logger)
            do {
                let value = try await work(connection)
                try await connection.query(Self.commit(nested), logger: logger)
                return value
            } catch {
                for statement in Self.rollback(nested) {
                    _ = try? await connection.query(statement, logger: logger)
                }
                throw error
            }
        }
    }

    /// Runs `work` in a transaction that is always rolled back (dry runs, the doctor's rescore).
    @discardableResult
    func rolledBack<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let (logger, nested) = (self.logger, pinned != nil)
        return try await withConnection { connection in
            try await connection.query(Self.begin(nested), logger: logger)
            do {
                let value = try await work(connection)
                for statement in Self.rollback(nested) {
                    try await connection.query(statement, logger: logger)
                }
                return value
            } catch {
                for statement in Self.rollback(nested) {
                    _ = try? await connection.query(statement, logger: logger)
                }
                throw error
            }
        }
    }

    /// A transaction's first statement; inside a dry run's transaction, a savepoint.
    private static func begin(_ nested: Bool) -> PostgresQuery { nested ? "SAVEPOINT vsh" : "BEGIN" }
    private static func commit(_ nested: Bool) -> PostgresQuery {
        nested ? "RELEASE SAVEPOINT vsh" : "COMMIT"
    }
    private static func rollback(_ nested: Bool) -> [PostgresQuery] {
        nested ? ["ROLLBACK TO SAVEPOINT vsh", "RELEASE SAVEPOINT vsh"] : ["ROLLBACK"]
    }

    /// Reads on one connection, outside any explicit transaction.
    @discardableResult
    func read<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws
        -> T
    {
        try await withConnection(work)
    }

    // MARK: schema

    /// Schema history: each step runs once, in order, in one transaction with the version stamp,
    /// under an advisory lock so that instances starting together migrate once.
    /// Version 2 has no SQL: its step is `rekeyPlayers` (names in NFC, unique by their NFKC
    /// case-folded key), which only Swift computes the way every instance looks names up.
    /// Version 3: check-in photos' pixel hashes (`unique_photo` by decoded pixels and near copies).
    /// Version 4: hunts' `late_grace_s` and `proof`. Version 5: check-ins' `clock_epoch`.
    /// Version 6: overturned rejections. Version 7: `vsh_open_group`, a check-in group's locks and
    /// first reads in one statement. Version 8: live check-ins indexed by the badges' clock.
    /// Version 9: hunts' pace and least duration, stops' own proof. Version 10: players'
    /// `name_lookalike`, filled by `fillLookalikes` (only Swift computes it, through ICU). Version
    /// 11: rate-limit buckets the instances share. Version 12: hunts' and stops' translations.
    /// Version 13: the organiser role. Version 14: the published hunt files. Version 15: hunts'
    /// revisions and drafts, and the revision each check-in was judged under. Version 16: private
    /// hunts and their members. Version 17: announcements. Version 18: banned players. Version 19:
    /// teams. Version 20: adjustments. Version 21: featured photos. Version 22: erased accounts. Version 23: positions.
    /// Version 24: stops' secrets. Version 25: answers. Version 26: each hunt's running totals.
    /// Version 27: each team's running totals, filled by `rescoreAllTeams`. Version 28: photos'
    /// indexes keyed by player too. Version 29: the perceptual hash's quarters indexed.
    static let migrations: [[String]] = [
        PostGISSchema.version1, [], PostGISSchema.version3, PostGISSchema.version4, PostGISSchema.version5,
        PostGISSchema.version6, PostGISSchema.version7, PostGISSchema.version8, PostGISSchema.version9,
        PostGISSchema.version10, PostGISSchema.version11, PostGISSchema.version12, PostGISSchema.version13,
        PostGISSchema.version14, PostGISSchema.version15, PostGISSchema.version16,
        PostGISSchema.version17, PostGISSchema.version18, PostGISSchema.version19,
        PostGISSchema.version20, PostGISSchema.version21, PostGISSchema.version22,
        PostGISSchema.version23, PostGISSchema.version24, PostGISSchema.version25, PostGISSchema.version26,
        PostGISSchema.version27, PostGISSchema.version28, PostGISSchema.version29,
    ]

    /// For a read-only database (a streaming replica): the schema must be there, at this
    /// version, since nothing may be created on it.
    private func checkSchema() async throws {
        let version = try await read { db in
            let rows = try await db.query(
                "SELECT CASE WHEN to_regclass('vsh_schema') IS NULL THEN 0 ELSE 1 END", logger: self.logger
            ).collect()
            guard try rows.first?.decode(Int.self) == 1 else { return 0 }
            return try await db.query("SELECT max(version) FROM vsh_schema", logger: self.logger).collect()
                .first?.decode(Int?.self) ?? 0
        }
        guard version == Self.migrations.count else {
            throw PostGISError(
                kind: .data,
                message: version == 0
                    ? "holds no vsh league (a read database must be a replica of the league's database)"
                    : "holds schema version \(version), this vsh reads version \(Self.migrations.count)",
                location: location)
        }
    }

    private func migrate() async throws {
        let logger = self.logger
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.migrations))", logger: logger)
            try await db.query(
                "CREATE TABLE IF NOT EXISTS vsh_schema (version integer NOT NULL)", logger: logger)
            let rows = try await db.query("SELECT max(version) FROM vsh_schema", logger: logger).collect()
            let current = try rows.first?.decode(Int?.self) ?? 0
            for (index, statements) in Self.migrations.enumerated() where index + 1 > current {
                for statement in statements {
                    try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                if index + 1 == 2 { try await Self.rekeyPlayers(db, logger: logger) }
                if index + 1 == 10 { try await Self.fillLookalikes(db, logger: logger) }
                if index + 1 == 27 { try await self.rescoreAllTeams(db) }
                try await db.query("INSERT INTO vsh_schema(version) VALUES (\(index + 1))", logger: logger)
            }
        }
    }
}

extension PostGISStore {
    /// Schema version 2: every player's name in NFC and its key recomputed by `PlayerName.key`.
    static func rekeyPlayers(_ db: PostgresConnection, logger: Logger) async throws {
        var players: [(id: Int64, name: String)] = []
        for try await (id, name) in try await db.query("SELECT id, name FROM players", logger: logger)
            .decode((Int64, String).self)
        {
            players.append((id, name))
        }
        guard !players.isEmpty else { return }
        let rekeyed = PlayerName.rekeyed(players)
        let ids = rekeyed.map(\.id)
        let names = rekeyed.map(\.name)
        let keys = rekeyed.map(\.key)
        try await db.query("UPDATE players SET name_key = chr(1) || id::text", logger: logger)
        try await db.query(
            """
            UPDATE players p SET name = u.name, name_key = u.key
            FROM unnest(\(ids)::bigint[], \(names)::text[], \(keys)::text[]) AS u(id, name, key)
            WHERE p.id = u.id
            """, logger: logger)
    }
}

extension PostGISStore {
    /// Schema version 10: every player's `name_lookalike` (`PlayerName.lookalikeKey`).
    static func fillLookalikes(_ db: PostgresConnection, logger: Logger) async throws {
        var ids: [Int64] = []
        var keys: [String] = []
        for try await (id, name) in try await db.query("SELECT id, name FROM players", logger: logger)
            .decode((Int64, String).self)
        {
            ids.append(id)
            keys.append(PlayerName.lookalikeKey(name))
        }
        guard !ids.isEmpty else { return }
        try await db.query(
            """
            UPDATE players p SET name_lookalike = u.key
            FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(id, key) WHERE p.id = u.id
            """, logger: logger)
    }
}

/// Advisory lock keys (`pg_advisory_xact_lock(bigint)`), one space for vsh.
enum Lock {
    static let migrations: Int64 = 0x7673_6800_0000_0001
    static let catalogue: Int64 = 0x7673_6800_0000_0002

    /// A player's lock: serialises the rules that read their history (first visit, travel
    /// speed, order, retry keys) and their rescore.
    static func player(_ id: PlayerID) -> Int64 { key("player\u{0}\(id.rawValue)") }

    /// A team's lock: serialises the rescores of its running totals (two groups of check-ins of
    /// its members, each scoring the team, would each miss the other's). Taken after players' locks,
    /// in the teams' order.
    static func team(_ id: Int64) -> Int64 { key("team\u{0}\(id)") }

    /// A name's lock: serialises registrations of names that look alike.
    static func lookalike(_ key: String) -> Int64 { self.key("name\u{0}\(key)") }

    /// A photo's lock: serialises `unique_photo` for one image across every player.
    static func image(_ sha256: String) -> Int64 { key("image\u{0}\(sha256)") }

    /// The first 8 bytes of the SHA-256 of `text`: the same key in every process.
    private static func key(_ text: String) -> Int64 {
        var hasher = SHA256()
        hasher.update(Array(text.utf8))
        let hex = hasher.finalizeHex()
        return Int64(bitPattern: UInt64(hex.prefix(16), radix: 16) ?? 0)
    }

    /// Takes `keys` in ascending order (the one order every transaction uses), after the catalogue
    /// lock in shared mode: two statements whatever the number of keys (`unnest` hands the sorted
    /// array's elements to the lock function in order).
    static func take(_ keys: Set<Int64>, on db: PostgresConnection, logger: Logger) async throws {
        try await db.query("SELECT pg_advisory_xact_lock_shared(\(catalogue))", logger: logger)
        let sorted = keys.sorted()
        guard !sorted.isEmpty else { return }
        try await db.query(
            "SELECT count(pg_advisory_xact_lock(k)) FROM unnest(\(sorted)::int8[]) AS k", logger: logger)
    }
}

/// A `postgres://` URL taken apart.
struct DatabaseURL {
    var host: String
    var port: Int
    /// The server's Unix socket, `/dir/.s.PGSQL.PORT`, when the URL names its directory as libpq
    /// does (`host=/dir` in the query, the URL's own host left empty, or that host
    /// percent-encoded; the port as the URL's or `port=`). PostgreSQL's `local` lines of
    /// `pg_hba.conf` apply to it, `peer` authentication among them.
    var socketPath: String?
    var user: String
    var password: String?
    var database: String
    /// The URL without its password.
    var redacted: String
    /// What `pg_stat_activity` and PostgreSQL's log call vsh's connections: the URL's
    /// `application_name`, else `vsh`.
    var applicationName = "vsh"
    /// TLS to the server, as the URL's `sslmode` (and `sslrootcert`) ask, with libpq's meanings:
    /// `disable` (and `allow`, and no sslmode at all) plain; `prefer` TLS when the server offers it,
    /// unverified; `require` TLS, unverified (verified against `sslrootcert` when it is given, as
    /// libpq does); `verify-ca` TLS with the server's chain verified; `verify-full` that and the host
    /// name too. Roots: `sslrootcert` (a PEM file), else the system's.
    var tls: TLSChoice = .disable

    enum TLSChoice {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)
    }

    init(_ text: String) throws {
        let components = PostGISStore.isURL(text) ? URLComponents(string: text) : nil
        let query = components?.queryItems ?? []
        let host = components?.host ?? ""
        // libpq's two ways to name the socket's directory: `?host=/dir`, or the host itself
        // percent-encoded (`postgres://vsh@%2Frun%2Fpostgresql/league`).
        let socketDirectory = query.last { $0.name == "host" }?.value ?? (host.hasPrefix("/") ? host : nil)
        guard let components, !host.isEmpty || socketDirectory != nil else {
            throw PostGISError(
                kind: .usage,
                message:
                    "not a PostgreSQL URL (postgres://user@host:port/database, or postgres://user@/database?host=/run/postgresql for a Unix socket)",
                location: PostGISError.databaseURL)
        }
        let portSetting = query.last { $0.name == "port" }?.value
        if let portSetting {
            guard let number = Int(portSetting), (1...65535).contains(number) else {
                throw PostGISError(
                    kind: .usage, message: "port=\(portSetting): not a port (1 to 65535)",
                    location: PostGISError.databaseURL)
            }
            port = number
        } else {
            port = components.port ?? 5432
        }
        user = components.user.flatMap { $0.removingPercentEncoding ?? $0 } ?? "postgres"
        password =
            components.password.flatMap { $0.removingPercentEncoding ?? $0 }
            ?? ProcessInfo.processInfo.environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : (path.removingPercentEncoding ?? path)
        for item in query
        where !["sslmode", "sslrootcert", "host", "port", "application_name"].contains(item.name) {
            throw PostGISError(
                kind: .usage,
                message:
                    "\(item.name) is not a setting vsh reads (sslmode, sslrootcert, host, port, application_name)",
                location: PostGISError.databaseURL)
        }
        if let socketDirectory {
            guard socketDirectory.hasPrefix("/"), !socketDirectory.contains("\0") else {
                throw PostGISError(
                    kind: .usage,
                    message: "host=\(socketDirectory): not a directory path (host=/run/postgresql, say)",
                    location: PostGISError.databaseURL)
            }
            let directory =
                socketDirectory.count > 1 && socketDirectory.hasSuffix("/")
                ? String(socketDirectory.dropLast()) : socketDirectory
            let socket = "\(directory)/.s.PGSQL.\(port)"
            // sockaddr_un holds 107 bytes and the terminating zero.
            guard socket.utf8.count <= 107 else {
                throw PostGISError(
                    kind: .usage,
                    message:
                        "host=\(socketDirectory): the socket's path is longer than the 107 bytes a Unix socket allows",
                    location: PostGISError.databaseURL)
            }
            socketPath = socket
            self.host = directory
            redacted = "postgres://\(user)@/\(database)?host=\(directory)"
        } else {
            self.host = host
            redacted = "postgres://\(user)@\(host):\(port)/\(database)"
        }
        if let name = query.last(where: { $0.name == "application_name" })?.value {
            // PostgreSQL keeps 63 bytes of printable ASCII and turns anything else into '?'.
            guard (1...63).contains(name.utf8.count), name.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
            else {
                throw PostGISError(
                    kind: .usage,
                    message: "application_name: give 1 to 63 printable ASCII characters (vsh-eu-1, say)",
                    location: PostGISError.databaseURL)
            }
            applicationName = name
        }
        let mode = query.last { $0.name == "sslmode" }?.value ?? "disable"
        // PostgreSQL speaks no TLS on its Unix socket (libpq does not ask for it there): a mode
        // that would need TLS is a contradiction, said now.
        if socketPath != nil, !["disable", "allow", "prefer"].contains(mode) {
            throw PostGISError(
                kind: .usage,
                message:
                    "sslmode=\(mode) asks for TLS, which PostgreSQL's Unix socket does not carry; connect by host name, or drop sslmode",
                location: PostGISError.databaseURL)
        }
        let rootFile = query.last { $0.name == "sslrootcert" }?.value
        var roots: NIOSSLTrustRoots = .default
        if let rootFile {
            do {
                roots = .certificates(try NIOSSLCertificate.fromPEMFile(rootFile))
            } catch {
                throw PostGISError(
                    kind: .usage, message: "sslrootcert=\(rootFile): not a PEM certificate file",
                    location: PostGISError.databaseURL)
            }
        }
        func client(_ verification: CertificateVerification) -> TLSConfiguration {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = verification
            configuration.trustRoots = roots
            return configuration
        }
        switch mode {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer(client(.none))
        case "require": tls = .require(client(rootFile == nil ? .none : .noHostnameVerification))
        case "verify-ca": tls = .require(client(.noHostnameVerification))
        case "verify-full": tls = .require(client(.fullVerification))
        default:
            throw PostGISError(
                kind: .usage,
                message:
                    "sslmode=\(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full",
                location: PostGISError.databaseURL)
        }
    }
}

/// A failure of the PostgreSQL store: what went wrong, where (the URL without its password).
public struct PostGISError: Error, ClassifiedError, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure, for the exit status.
    public enum Kind: Sendable {
        /// `refused`: the server answered and said no (a wrong password, a database not there, a
        /// role without the rights it needs); trying again changes nothing, unlike `unreachable`.
        case usage, unreachable, refused, busy, data, io, other
    }

    public let kind: Kind
    /// What went wrong, in words.
    public let message: String
    /// The database, without its password.
    public let location: String

    /// The location of an error in the database URL itself (the command line names its flag).
    public static let databaseURL = "the database URL"

    public init(kind: Kind, message: String, location: String) {
        self.kind = kind
        self.message = message
        self.location = location
    }

    public var description: String { "\(location): \(message)" }
    public var errorDescription: String? { description }

    /// An invalid request (a bad URL), unavailable input (cannot connect), busy (a conflict to
    /// retry), invalid data (refused), a storage failure (a full disk, an I/O error, a read-only
    /// server), else an internal failure.
    public var errorKind: ErrorKind {
        switch kind {
        case .usage: return .invalidRequest
        case .unreachable, .refused: return .unavailableInput
        case .busy: return .busy
        case .data: return .invalidData
        case .io: return .storageFailure
        case .other: return .internalFailure
        }
    }

    /// Keeps the league's own errors; describes the driver's without the query's values.
    static func wrap(_ error: any Error, location: String) -> any Error {
        if error is PostGISError || error is LeagueError || error is HuntFileErrors
            || error is PlayerNameError
            || error is PhotoError || error is CancellationError
        {
            return error
        }
        if let error = error as? PSQLError {
            if let server = error.serverInfo {
                let state = server[.sqlState] ?? ""
                let text = server[.message] ?? "error"
                switch state {
                case "40001", "40P01", "55P03", "53300":
                    // A conflict, a lock not granted in time, or every connection the server (or
                    // the role) allows in use: all pass.
                    return PostGISError(
                        kind: .busy, message: "the database is busy (\(text)); try again", location: location)
                case "28P01", "28000", "3D000":
                    return PostGISError(
                        kind: .refused, message: "cannot open the database: \(text)", location: location)
                case "42501":
                    return PostGISError(
                        kind: .refused, message: "permission denied: \(text)", location: location)
                case "53100", "58030", "25006":  // disk_full, io_error, read_only_sql_transaction
                    return PostGISError(
                        kind: .io, message: "the database cannot write: \(text)", location: location)
                default:
                    return PostGISError(
                        kind: .other, message: "database error \(state): \(text)", location: location)
                }
            }
            if error.code == .sslUnsupported {
                return PostGISError(
                    kind: .unreachable,
                    message:
                        "the server does not offer TLS, which sslmode asks for (ssl = on in postgresql.conf)",
                    location: location)
            }
            if let underlying = error.underlying, underlying is NIOSSLError || underlying is BoringSSLError {
                return PostGISError(
                    kind: .unreachable,
                    message:
                        "TLS to PostgreSQL failed: the server's certificate was not accepted; give its CA with sslrootcert=FILE",
                    location: location)
            }
            return PostGISError(
                kind: .unreachable,
                message: "cannot reach PostgreSQL (is the server running and the URL right?)",
                location: location)
        }
        if error is NIOSSLError || error is BoringSSLError {
            return PostGISError(
                kind: .unreachable,
                message:
                    "TLS to PostgreSQL failed: the server's certificate was not accepted; give its CA with sslrootcert=FILE",
                location: location)
        }
        return PostGISError(kind: .other, message: "\(error)", location: location)
    }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}

extension PostGISStore: DryRunStore {
    /// Runs `body` on a view of this store whose every statement runs in one transaction on one
    /// connection, rolled back at the end (each of the store's own transactions is a savepoint in
    /// it). The rules still take their locks: while a dry run replays a player's walk, that
    /// player's live check-ins wait for it (up to the busy timeout).
    public func dryRun<T: Sendable>(_ body: (any LeagueStore) async throws -> T) async throws -> T {
        let logger = self.logger
        do {
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let value = try await body(PostGISStore(viewOf: self, on: connection))
                    try await connection.query("ROLLBACK", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            throw PostGISError.wrap(error, location: location)
        }
    }
}
