import Foundation
internal import CSpatiaLite
internal import GRDB

/// SpatiaLite's per-connection cache (GEOS and PROJ handles, prepared
/// geometries), freed in `deinit`.
final class SpatiaLiteCache: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init() {
        spatialite_initialize()
        pointer = spatialite_alloc_connection()
    }

    /// Registers SpatiaLite's SQL functions on a connection (`spatialite_init_ex`).
    func attach(to db: Database, busyTimeout: TimeInterval) throws {
        guard let handle = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed")
        }
        spatialite_init_ex(handle, pointer, 0)
        // SpatiaLite's initialisation sets a busy timeout of its own (5 s), over the one GRDB set:
        // put ours back, so that the wait is the documented one (and VSH_BUSY_TIMEOUT works).
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
    }

    deinit {
        spatialite_cleanup_ex(pointer)
    }
}

/// One SQLite connection with SpatiaLite loaded. Owns both and closes the
/// connection before SpatiaLite's cache is freed.
final class SpatiaLiteDatabase {
    let path: String
    let queue: DatabaseQueue
    private let cache: SpatiaLiteCache

    /// - Parameter path: a file, or nil for a private in-memory database.
    init(path: String?, busyTimeout: TimeInterval) throws {
        self.path = path ?? ":memory:"
        let cache = SpatiaLiteCache()
        self.cache = cache
        var config = Configuration()
        if path != nil { config.journalMode = .wal }
        config.busyMode = .timeout(busyTimeout)
        // SpatiaLite's own SQL (metadata triggers) uses double-quoted strings.
        config.acceptsDoubleQuotedStringLiterals = true
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in try cache.attach(to: db, busyTimeout: busyTimeout) }
        do {
            queue = try path.map { try DatabaseQueue(path: $0, configuration: config) }
                ?? DatabaseQueue(configuration: config)
            // GRDB sets synchronous = NORMAL with WAL: a power cut could lose the last commits.
            // A check-in that was answered must survive one: FULL syncs the WAL at each commit.
            if path != nil { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") } }
        } catch {
            throw StoreError.wrap(error, path: self.path)
        }
    }

    /// Runs database work, turning GRDB errors into `StoreError`s that name the file.
    func run<T>(_ work: (DatabaseQueue) throws -> T) throws -> T {
        do { return try work(queue) } catch { throw StoreError.wrap(error, path: path) }
    }

    deinit {
        try? queue.close()
    }
}
