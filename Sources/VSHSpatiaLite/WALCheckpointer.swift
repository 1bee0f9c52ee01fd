internal import CSpatiaLite
import Foundation
internal import GRDB

/// Checkpoints a server's league (a pooled file) on a thread and a connection of its own, so that
/// the writer never does.
///
/// SQLite's automatic checkpoint runs in the connection that commits, after its commit: every
/// 1,000 pages of WAL, the writer copied them into the database file and synced it (7 ms at the
/// median under device-fix check-ins on the benchmark machine, 15 ms at worst) while every
/// check-in queued behind it waited. The writer is the one serial stage of a server, so that time
/// was taken from every group of check-ins. Here the writer's WAL hook only wakes this thread when
/// the WAL passes 3,500 pages, and the thread runs a PASSIVE checkpoint: it copies what no reader
/// still needs, waits for no lock, and blocks neither the writer nor the readers. (Past 4,000
/// pages, the writer finishes one itself: see `writerPages`.) The WAL is
/// synced at every commit as before (`synchronous = FULL`), so nothing answered can be lost; the
/// database file is synced after each checkpoint, by SQLite.
///
/// Why 3,500 and not SQLite's 1,000: a checkpoint copies the last version of each page the WAL
/// holds. Check-ins change the same pages again and again (the leaves of the indexes by player,
/// the tables' last pages), and from 1,000 pages on, every commit woke the thread, so each commit's
/// pages were copied and the file synced once more: a tenth of the server's CPU under device-fix
/// check-ins. Woken at 3,500, the thread copies most pages once in each pass of the WAL, and a
/// check-in costs 0.050 `fdatasync`s instead of 0.087 (docs/speed.md, twenty-first session). The
/// WAL's file stays under about 16 MB as before.
final class WALCheckpointer: @unchecked Sendable {
    // The flags are guarded by `condition`; the connection is used by the thread alone.
    private let connection: DatabaseQueue
    private let condition = NSCondition()
    private var wanted = false
    private var stopped = false
    private var finished = false
    /// WAL pages after which a checkpoint is wanted (SQLite's automatic one is at 1,000).
    static let pages: Int32 = 3_500
    /// WAL pages after which the writer checkpoints itself (what the thread has copied is not
    /// copied again), so that the WAL restarts and its file stays under about 16 MB.
    static let writerPages: Int32 = 4_000
    /// Checkpoints run, for tests.
    private(set) var checkpoints = 0

    init(path: String, busyTimeout: TimeInterval) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = false
        connection = try DatabaseQueue(path: path, configuration: config)
        let thread = Thread { [self] in run() }
        thread.name = "vsh-checkpoint"
        thread.start()
    }

    /// Takes the automatic checkpoint off `db` (the writer): its commits wake this thread instead.
    func install(on db: Database) {
        guard let handle = db.sqliteConnection else { return }
        // A WAL hook replaces SQLite's automatic checkpoint, which is one (`sqlite3_wal_autocheckpoint`).
        sqlite3_wal_hook(
            handle,
            { context, db, name, pages in
                if pages >= WALCheckpointer.writerPages {
                    // Under a steady stream of commits the thread cannot catch up with the writer,
                    // and the WAL restarts from its beginning only at a transaction that begins
                    // with all of it checkpointed: the writer finishes the checkpoint then.
                    sqlite3_wal_checkpoint(db, name)
                } else if pages >= WALCheckpointer.pages, let context {
                    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().wake()
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func wake() {
        condition.lock()
        wanted = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while !wanted && !stopped { condition.wait() }
            let stop = stopped
            wanted = false
            condition.unlock()
            if stop { break }
            // A failure (the disk full, a lock held by another process) leaves the WAL to the next
            // wake-up, or to the last connection to close.
            _ = try? connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
            condition.lock()
            checkpoints += 1
            condition.unlock()
        }
        try? connection.close()
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Checkpoints run so far.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return checkpoints
    }

    /// Ends the thread, after the checkpoint it may be running; call once the writer is closed.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
