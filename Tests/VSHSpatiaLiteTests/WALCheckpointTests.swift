import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

/// A server's league (a pooled store) is checkpointed by a thread of its own, never by the writer:
/// the writer's commits only wake it. The WAL stays bounded and every commit survives a reopen.
@Suite struct WALCheckpointTests {
    static let rowBytes = 4_000

    /// Writes `transactions` transactions of ten rows of `rowBytes` random bytes.
    static func write(_ store: SpatiaLiteStore, transactions: Int) async throws {
        for _ in 0..<transactions {
            try await store.database.write { db in
                for _ in 0..<10 {
                    try db.execute(sql: "INSERT INTO wal_scratch(b) VALUES (randomblob(\(Self.rowBytes)))")
                }
            }
        }
    }

    /// A new server's league (a pooled store) with the table `write` fills, its path and its
    /// checkpointer.
    static func scratchLeague() async throws -> (String, SpatiaLiteStore, WALCheckpointer) {
        let folder = try TestSupport.temporaryDirectory("vsh-wal")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        let checkpointer = try #require(store.database.checkpointer)
        try await store.database.write { try $0.execute(sql: "CREATE TABLE wal_scratch(b BLOB)") }
        return (path, store, checkpointer)
    }

    static func walBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func theCheckpointsRunOnTheirOwnThreadAndTheWALStaysBounded() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-wal")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        var store: SpatiaLiteStore? = try SpatiaLiteStore(path: path)
        let checkpointer = try #require(store!.database.checkpointer)
        try await store!.database.write { try $0.execute(sql: "CREATE TABLE wal_scratch(b BLOB)") }
        // 1,500 transactions of 40 KB: 60 MB, about 15,000 pages of WAL written.
        try await Self.write(store!, transactions: 1_500)
        let written = 1_500 * 10 * Self.rowBytes
        // The thread catches up (a wait for it, bounded; no time is asserted).
        for _ in 0..<600 where checkpointer.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(checkpointer.count >= 2)
        // The WAL restarts from its beginning rather than growing with every commit: its file stays
        // near 4,000 pages (`writerPages`) whatever is written.
        #expect(
            Self.walBytes(path) < Int(WALCheckpointer.writerPages) * 4_096 * 5 / 4,
            "WAL of \(Self.walBytes(path)) bytes after \(written) written")
        // Every commit is there after the store is closed and opened again.
        store = nil
        let reopened = try SpatiaLiteStore(path: path)
        let rows = try await reopened.database.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM wal_scratch")
        }
        #expect(rows == 15_000)
    }

    @Test func theWriterNoLongerCheckpointsByItself() async throws {
        let (path, store, checkpointer) = try await Self.scratchLeague()
        // With its thread stopped, nothing checkpoints: the WAL passes SQLite's automatic limit
        // (1,000 pages of 4 KiB), which the writer would have checkpointed at.
        checkpointer.stop()
        let before = checkpointer.count
        try await Self.write(store, transactions: 200)
        #expect(Self.walBytes(path) > 1_000 * 4_096 * 3 / 2)
        #expect(checkpointer.count == before)
    }

    /// The thread is not woken for every commit once the WAL passes SQLite's 1,000 pages: a
    /// checkpoint then would copy pages that the next commits change again. Below `pages` the
    /// league file is left alone; past it, the thread copies the WAL into it.
    @Test func theThreadWaitsForThePagesBeforeItCopiesAny() async throws {
        let (path, store, checkpointer) = try await Self.scratchLeague()
        let size = { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
        let (before, fileBefore) = (checkpointer.count, size())
        // Over 2,000 pages of WAL (200 transactions of ten 4,000-byte rows, after the league's
        // creation): past 1,000, short of 3,500.
        try await Self.write(store, transactions: 200)
        let pages = Self.walBytes(path) / (4_096 + 24)
        #expect(pages > 2_000 && pages < Int(WALCheckpointer.pages))
        // A thread woken copies within milliseconds; a second of nothing is taken as none.
        for _ in 0..<40 where checkpointer.count == before { try await Task.sleep(for: .milliseconds(25)) }
        #expect(checkpointer.count == before)
        #expect(size() == fileBefore)
        // Past `pages` (and short of `writerPages`, where the writer would copy it itself), the
        // thread copies the WAL into the league file.
        try await Self.write(store, transactions: 80)
        #expect(Self.walBytes(path) / (4_096 + 24) < Int(WALCheckpointer.writerPages))
        for _ in 0..<600 where checkpointer.count == before { try await Task.sleep(for: .milliseconds(50)) }
        #expect(checkpointer.count > before)
        for _ in 0..<600 where size() <= fileBefore { try await Task.sleep(for: .milliseconds(50)) }
        #expect(size() > fileBefore + 200 * 10 * Self.rowBytes)
    }

    /// A request's lookups (its session, the hunts' definitions token, the hunts a player joined)
    /// read one statement each without a transaction of their own: each must leave no snapshot
    /// open, or the checkpoints could never reset the WAL behind it, and each must see what the
    /// writer committed before it.
    @Test func aRequestsLookupsLeaveNoSnapshotOpen() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-wal")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        try #require(store.database.checkpointer).stop()
        try await store.database.write { try $0.execute(sql: "CREATE TABLE wal_scratch(b BLOB)") }
        let t0 = Date(timeIntervalSince1970: 1_795_000_000)
        let ann = try await store.addPlayer(name: "Ann Lee", email: nil, at: t0)
        try await store.createSession(tokenHash: "h1", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await Self.write(store, transactions: 3)
        #expect(try await store.session(tokenHash: "h1", at: t0)?.player.id == ann.id)
        #expect(try await store.session(tokenHash: "nope", at: t0) == nil)
        #expect(try await store.hunt(id: "strip-classics") == nil)
        #expect(try await store.joinedHunts(player: ann.id).isEmpty)
        // What the writer commits after those lookups is seen by the next ones.
        try await store.joinHunt(player: ann.id, huntID: "strip-classics", at: t0)
        try await store.createSession(tokenHash: "h2", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await store.deleteSession(tokenHash: "h1")
        #expect(try await store.joinedHunts(player: ann.id) == ["strip-classics"])
        #expect(try await store.session(tokenHash: "h2", at: t0)?.player.id == ann.id)
        #expect(try await store.session(tokenHash: "h1", at: t0) == nil)
        try await Self.write(store, transactions: 3)
        #expect(Self.walBytes(path) > 0)
        // A checkpoint that resets the WAL waits for every reader's snapshot: none is left.
        // Its first column says whether it was kept from finishing.
        let busy = try await store.database.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        #expect(busy == 0)
        #expect(Self.walBytes(path) == 0)
    }
}
