internal import CSpatiaLite
import Foundation
internal import GRDB
import Synchronization

/// SpatiaLite's per-connection cache (GEOS and PROJ handles, prepared
/// geometries), freed in `deinit`.
final class SpatiaLiteCache: @unchecked Sendable {
    // Owned exclusively: created here, used only by the one connection it is attached to, freed in deinit.
    let pointer: UnsafeMutableRawPointer

    init() {
        vsh_spatialite_initialize()
        pointer = vsh_spatialite_alloc_connection()
    }

    /// Registers SpatiaLite's SQL functions on a connection (`spatialite_init_ex`).
    func attach(to db: Database, busyTimeout: TimeInterval) throws {
        guard let handle = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed")
        }
        vsh_spatialite_init_ex(handle, pointer, 0)
        // SpatiaLite's initialisation sets a busy timeout of its own (5 s), over the one GRDB set:
        // put ours back, so that the wait is the documented one (and VSH_BUSY_TIMEOUT works).
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
    }

    deinit {
        vsh_spatialite_cleanup_ex(pointer)
    }
}

/// The SQLite connections of one database with SpatiaLite loaded on each: a GRDB
/// `DatabasePool` for a file shared by concurrent work (WAL: readers run beside the one
/// writer), a `DatabaseQueue` (one connection, still WAL) for a short-lived process or a
/// private in-memory database. Owns the SpatiaLite caches and closes every connection
/// before they are freed.
final class SpatiaLiteDatabase: Sendable {
    let path: String
    /// Opened read-only (immutable): nothing can be written, not even in a rolled-back transaction.
    let readOnly: Bool
    let writer: any DatabaseWriter
    /// One cache a connection; the pool opens reader connections on demand.
    private let caches: CacheList
    /// Set when SpatiaLite is attached on first need rather than when the connection opens.
    private let lazy: LazySpatiaLite?
    /// A pooled file's checkpoints, off the writer (`WALCheckpointer`).
    let checkpointer: WALCheckpointer?
    /// A pooled file's connection for `readHere`, never one of the pool's readers (see there).
    private let hereReader: DatabaseQueue?

    /// - Parameters:
    ///   - path: a file, or nil for a private in-memory database.
    ///   - pooled: a pool of reader connections beside the writer, or one connection for everything.
    ///   - onDemand: SpatiaLite is attached when a statement first needs it (a single connection
    ///     only): loading it and its 45 libraries and initialising PROJ costs a short-lived
    ///     command about 14 ms, and a check-in or a lookup mostly needs none of it.
    init(
        path: String?, busyTimeout: TimeInterval, pooled: Bool = true, readOnly: Bool = false,
        onDemand: Bool = false
    ) throws {
        self.path = path ?? ":memory:"
        self.readOnly = readOnly
        _ = Self.uriFileNames
        let caches = CacheList()
        self.caches = caches
        let lazy =
            onDemand && !(path != nil && pooled && !readOnly)
            ? LazySpatiaLite(busyTimeout: busyTimeout, path: self.path) : nil
        self.lazy = lazy
        if lazy == nil { try Self.requireSpatiaLite(path: self.path) }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        // SpatiaLite's own SQL (metadata triggers) uses double-quoted strings.
        config.acceptsDoubleQuotedStringLiterals = true
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.prepareDatabase { db in
            if let lazy, let handle = db.sqliteConnection {
                // A new connection: nothing attached yet (a closed one's handle may be reused).
                lazy.register(handle, caches: caches)
            } else {
                let cache = SpatiaLiteCache()
                caches.list.withLock { $0.append(cache) }
                try cache.attach(to: db, busyTimeout: busyTimeout)
            }
            // Pages are read through a memory map, not copied by pread: a server's readers reread
            // pages after every commit of the writer.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        // A new league file is the owner's alone (players' e-mail, password hashes, positions):
        // made 0600 before SQLite opens it, whatever the umask; SQLite gives its -wal and -shm the
        // same mode.
        if let path, !readOnly, path != ":memory:" {
            let fd = open(Self.plain(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        var checkpointer: WALCheckpointer?
        var hereReader: DatabaseQueue?
        do {
            if let path, readOnly {
                writer = try DatabaseQueue(path: Self.immutableURI(path), configuration: config)
            } else if let path, pooled {
                let pool = try DatabasePool(path: Self.plain(path), configuration: config)
                let walCheckpointer = try WALCheckpointer(path: Self.plain(path), busyTimeout: busyTimeout)
                // Set first: if the hook cannot be installed, the thread is stopped below.
                checkpointer = walCheckpointer
                pool.writeWithoutTransaction { walCheckpointer.install(on: $0) }
                writer = pool
                // Plain SQL only (no SpatiaLite): the lookups every request makes. Without a memory
                // map: a connection remaps the file at the start of a read when it grew, which under
                // check-ins is nearly every read, and then faults in every page it touches again.
                var here = Configuration()
                here.busyMode = .timeout(busyTimeout)
                here.readonly = true
                hereReader = try DatabaseQueue(path: Self.plain(path), configuration: here)
            } else if let path {
                writer = try DatabaseQueue(path: Self.plain(path), configuration: config)
                // WAL as GRDB's `.wal` sets it, without what it adds for pools: when the -wal file
                // is missing or empty (as the last connection to close leaves it), it creates a
                // table and drops it, a durable commit on every command's open, a lookup's too.
                // One connection needs no -wal file to read; its first write makes one.
                try writer.writeWithoutTransaction { db in
                    guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                        throw DatabaseError(message: "could not turn on WAL mode")
                    }
                }
            } else {
                writer = try DatabaseQueue(configuration: config)
            }
            // GRDB sets synchronous = NORMAL when it turns WAL on (after `prepareDatabase`): a power
            // cut could lose the last commits. A check-in that was answered must survive one: FULL
            // syncs the WAL at each commit. Only the writer connection commits.
            if path != nil, !readOnly {
                try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            }
        } catch {
            checkpointer?.stop()
            throw StoreError.wrap(error, path: self.path)
        }
        self.checkpointer = checkpointer
        self.hereReader = hereReader
    }

    /// File names may be `file:` URIs (set once, before SQLite's first use in the process).
    static let uriFileNames: Bool = vsh_sqlite_enable_uri() == SQLITE_OK

    /// A path SQLite reads as a file name even with URIs on ("file:x" is "./file:x").
    static func plain(_ path: String) -> String { path.hasPrefix("file:") ? "./" + path : path }

    /// A read-only league: opened as immutable (SQLite then needs no WAL index, which it could
    /// not create on read-only media, and assumes that nobody writes the file meanwhile).
    static func immutableURI(_ path: String) -> String {
        guard uriFileNames else { return path }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute)
            + "?immutable=1"
    }

    /// SpatiaLite's absence as an error: it could not be loaded.
    static func requireSpatiaLite(path: String) throws {
        if let error = vsh_spatialite_load_error() {
            throw StoreError(
                code: 0,
                message:
                    "SpatiaLite cannot be loaded (\(String(cString: error))); install it (Debian: libspatialite7)",
                path: path)
        }
    }

    /// Makes SpatiaLite's functions available on `db` (a no-op where they are): code about to
    /// run spatial SQL calls it, and so does a retry after "no such function" (`run`, `read`, ...).
    static func attachSpatiaLite(_ db: Database) throws {
        guard let handle = db.sqliteConnection, let lazy = LazySpatiaLite.forConnection(handle) else {
            return
        }
        try lazy.attach(db)
    }

    /// Whether `error` is SQL that needed SpatiaLite on a connection without it, which is
    /// then attached and the work run again (its transaction was rolled back).
    private func missingSpatiaLite(_ error: any Error) -> Bool {
        guard let lazy, !lazy.attachedEverywhere, let error = error as? DatabaseError,
            let message = error.message
        else { return false }
        return message.hasPrefix("no such function: ") || message.hasPrefix("no such module: ")
    }

    /// Runs database work, turning GRDB errors into `StoreError`s that name the file.
    func run<T>(_ work: (any DatabaseWriter) throws -> T) throws -> T {
        do { return try work(writer) } catch  where missingSpatiaLite(error) {
            do {
                try writer.writeWithoutTransaction { try Self.attachSpatiaLite($0) }
                return try work(writer)
            } catch { throw StoreError.wrap(error, path: path) }
        } catch { throw StoreError.wrap(error, path: path) }
    }

    /// `work`, and once more with SpatiaLite attached when it needed it.
    private func retrying<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        do { return try await work() } catch  where missingSpatiaLite(error) {
            do {
                try await writer.writeWithoutTransaction { try Self.attachSpatiaLite($0) }
                return try await work()
            } catch { throw StoreError.wrap(error, path: path) }
        } catch { throw StoreError.wrap(error, path: path) }
    }

    /// Reads on the calling thread (a snapshot; never waits for the writer): for the short
    /// indexed lookups of every request (a session), where handing the work to a reader's queue
    /// and the answer back, two threads woken, cost more than the read. Plain SQL only.
    ///
    /// A pooled file reads on a connection of its own, never on one of the pool's readers: an
    /// async read keeps its reader until its task runs again, so a thread of Swift's pool waiting
    /// here for a reader could wait for a task that waits for that thread (with every thread of
    /// the pool waiting, the service stops). Nothing waits for its own connection but another
    /// `readHere`, and none of those waits for anything.
    func readHere<T>(_ work: (Database) throws -> T) throws -> T {
        guard let hereReader else { return try run { try $0.read(work) } }
        do { return try hereReader.read(work) } catch { throw StoreError.wrap(error, path: path) }
    }

    /// `readHere` for work that runs one statement: SQLite reads a statement on its own as a
    /// snapshot (its own implicit transaction, ended when the statement is reset, which GRDB's
    /// fetches do before they return), so it needs no `BEGIN` and `COMMIT` around it. Those, and
    /// GRDB's bookkeeping of them, were about half of what the two reads of every check-in request
    /// (its session and the definitions' token) cost (docs/speed.md, nineteenth session).
    func readStatementHere<T>(_ work: (Database) throws -> T) throws -> T {
        guard let hereReader else { return try run { try $0.read(work) } }
        do { return try hereReader.unsafeRead(work) } catch { throw StoreError.wrap(error, path: path) }
    }

    /// Reads on a reader connection (a snapshot; never waits for the writer).
    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await retrying { try await writer.read(work) }
    }

    /// Writes in one IMMEDIATE transaction on the writer connection, committed when `work` returns.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await transaction(work, then: .commit)
    }

    /// Runs `work` on the writer connection outside any transaction (`VACUUM INTO`, pragmas).
    func writeWithoutTransaction<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws
        -> T
    {
        try await retrying { try await writer.writeWithoutTransaction(work) }
    }

    /// Runs `work` in an IMMEDIATE transaction that is rolled back: for checks that must change nothing.
    func writeAndRollBack<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await transaction(work, then: .rollback)
    }

    /// `work` in one IMMEDIATE transaction on the writer connection, then `completion`.
    private func transaction<T: Sendable>(
        _ work: @escaping @Sendable (Database) throws -> T, then completion: Database.TransactionCompletion
    ) async throws -> T {
        try await retrying {
            try await writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try work(db)
                    return completion
                }
                return result!
            }
        }
    }

    deinit {
        try? writer.close()
        checkpointer?.stop()
        lazy?.unregister()
    }
}

/// SpatiaLite attached on first need to the connections of one database (`onDemand`), found by
/// their SQLite handle: static code that holds only a `Database` asks `attachSpatiaLite`.
final class LazySpatiaLite: Sendable {
    let busyTimeout: TimeInterval
    /// The handles of this database's open connections, and whether each has SpatiaLite.
    private let connections = Mutex<[Int: Bool]>([:])
    private let caches = Mutex<CacheList?>(nil)
    /// Every lazily attached connection of the process, by handle.
    private static let registry = Mutex<[Int: LazySpatiaLite]>([:])

    let path: String

    init(busyTimeout: TimeInterval, path: String) {
        self.busyTimeout = busyTimeout
        self.path = path
    }

    static func key(_ handle: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(handle)) }

    static func forConnection(_ handle: OpaquePointer) -> LazySpatiaLite? {
        registry.withLock { $0[Self.key(handle)] }
    }

    /// Whether every connection opened so far has SpatiaLite (none left to attach it to).
    var attachedEverywhere: Bool { connections.withLock { !$0.isEmpty && $0.values.allSatisfy { $0 } } }

    func register(_ handle: OpaquePointer, caches list: CacheList) {
        let key = Self.key(handle)
        caches.withLock { $0 = list }
        connections.withLock { $0[key] = false }
        Self.registry.withLock { $0[key] = self }
    }

    func attach(_ db: Database) throws {
        guard let handle = db.sqliteConnection else { return }
        let key = Self.key(handle)
        guard connections.withLock({ $0[key] == false }) else { return }
        try SpatiaLiteDatabase.requireSpatiaLite(path: path)
        let cache = SpatiaLiteCache()
        caches.withLock { $0?.list.withLock { $0.append(cache) } }
        try cache.attach(to: db, busyTimeout: busyTimeout)
        connections.withLock { $0[key] = true }
    }

    /// Forgets this database's connections (closed).
    func unregister() {
        let keys = connections.withLock { Array($0.keys) }
        Self.registry.withLock { registry in
            for key in keys where registry[key] === self { registry[key] = nil }
        }
    }
}

/// The SpatiaLite caches of a database's connections, kept until the database is closed.
final class CacheList: Sendable {
    let list = Mutex<[SpatiaLiteCache]>([])
}
