import Foundation
internal import GRDB
import VSHCore

extension SpatiaLiteStore {
    /// Copies the league, as one consistent snapshot, into a new file at `path` through SQLite's
    /// online backup API: other processes (a running `vsh serve`) go on reading and writing
    /// meanwhile, and what they commit after the snapshot began is not in the copy. The file is
    /// written beside `path` and renamed into place when whole, private to its owner (0600).
    /// - Returns: the check-ins in the copy.
    /// - Throws: `StoreError` when `path` exists or cannot be written.
    public func backup(to path: String) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError(code: 10, message: "\(path) exists: back up into a new file", path: path)
        }
        let partial = path + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: partial + suffix)
        }
        guard
            FileManager.default.createFile(
                atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw StoreError(code: 10, message: "cannot create \(partial)", path: path)
        }
        do {
            let count = try await read { db in
                // The read transaction is the snapshot: one backup step copies every page of it.
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM checkins") ?? 0
                let target = try DatabaseQueue(path: partial)
                try target.writeWithoutTransaction { targetDB in try db.backup(to: targetDB) }
                try target.writeWithoutTransaction { targetDB in
                    // One file, no write-ahead log beside it: a backup is copied and moved as a file.
                    try targetDB.execute(sql: "PRAGMA journal_mode = DELETE")
                    guard try String.fetchOne(targetDB, sql: "PRAGMA quick_check") == "ok" else {
                        throw StoreError(code: 11, message: "the copy failed its integrity check", path: path)
                    }
                }
                try target.close()
                return count
            }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
            return count
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: partial + suffix)
            }
            throw error
        }
    }
}
