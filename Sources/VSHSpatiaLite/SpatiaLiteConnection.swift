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

    /// - Parameters:
    ///   - path: a file, or nil for a private in-memory database.
    ///   - pooled: a pool of reader connections beside the writer, or one connection for everything.
    init(path: String?, busyTimeout: TimeInterval, pooled: Bool = true, readOnly: Bool = false) throws {
        self.path = path ?? ":memory:"
        self.readOnly = readOnly
        _ = Self.uriFileNames
        if let error = vsh_spatialite_load_error() {
            throw StoreError(
                code: 0,
                message:
                    "SpatiaLite cannot be loaded (\(String(cString: error))); install it (Debian: libspatialite7)",
                path: self.path)
        }
        let caches = CacheList()
        self.caches = caches
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        // SpatiaLite's own SQL (metadata triggers) uses double-quoted strings.
        config.acceptsDoubleQuotedStringLiterals = true
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.prepareDatabase { db in
            let cache = SpatiaLiteCache()
            caches.list.withLock { $0.append(cache) }
            try cache.attach(to: db, busyTimeout: busyTimeout)
            // Pages are read through a memory map, not copied by pread: a server's readers reread
            // pages after every commit of the writer.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        do {
            if let path, readOnly {
                writer = try DatabaseQueue(path: Self.immutableURI(path), configuration: config)
            } else if let path, pooled {
                writer = try DatabasePool(path: Self.plain(path), configuration: config)
            } else if let path {
                config.journalMode = .wal
                writer = try DatabaseQueue(path: Self.plain(path), configuration: config)
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
            throw StoreError.wrap(error, path: self.path)
        }
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

    /// Runs database work, turning GRDB errors into `StoreError`s that name the file.
    func run<T>(_ work: (any DatabaseWriter) throws -> T) throws -> T {
        do { return try work(writer) } catch { throw StoreError.wrap(error, path: path) }
    }

    /// Reads on a reader connection (a snapshot; never waits for the writer).
    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await writer.read(work) } catch { throw StoreError.wrap(error, path: path) }
    }

    /// Writes in one IMMEDIATE transaction on the writer connection, committed when `work` returns.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await transaction(work, then: .commit)
    }

    /// Runs `work` on the writer connection outside any transaction (`VACUUM INTO`, pragmas).
    func writeWithoutTransaction<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws
        -> T
    {
        do { return try await writer.writeWithoutTransaction(work) } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Runs `work` in an IMMEDIATE transaction that is rolled back: for checks that must change nothing.
    func writeAndRollBack<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await transaction(work, then: .rollback)
    }

    /// `work` in one IMMEDIATE transaction on the writer connection, then `completion`.
    private func transaction<T: Sendable>(
        _ work: @escaping @Sendable (Database) throws -> T, then completion: Database.TransactionCompletion
    ) async throws -> T {
        do {
            return try await writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try work(db)
                    return completion
                }
                return result!
            }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    deinit {
        try? writer.close()
    }
}

/// The SpatiaLite caches of a database's connections, kept until the database is closed.
final class CacheList: Sendable {
    let list = Mutex<[SpatiaLiteCache]>([])
}
