import Foundation
import Synchronization
import Testing
import VSHCore
import VSHHost
import VSHSpatiaLite
import VSHTestSupport

@testable import VSHPostGIS

/// Session lookups gathered into batches (PostGIS), and sessions looked up many at once on
/// every backend.
@Suite struct SessionLookupTests {
    /// A gate a lookup waits at until the test opens it.
    actor Gate {
        private var open = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func pass() async {
            if open { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func release() {
            open = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    struct Boom: Error {}

    /// Yields until `done` holds, or a million turns have passed (then the expectations after it
    /// fail, rather than the test hang).
    static func yield(until done: () -> Bool) async {
        var turns = 0
        while !done() && turns < 1_000_000 {
            await Task.yield()
            turns += 1
        }
    }

    /// Lookups that arrive while a batch is in flight wait and go together in the next one, each
    /// key once, each caller answered for its own key; a batch's error reaches its callers and
    /// those queued behind it, and the next lookup runs again.
    @Test func lookupsWaitingForABatchGoTogetherInTheNext() async throws {
        let lookups = BatchedLookups<Int>()
        let gate = Gate()
        let failing = Gate()
        let batches = Mutex<[[String]]>([])
        let run: @Sendable ([String]) async throws -> [String: Int] = { keys in
            batches.withLock { $0.append(keys) }
            if keys == ["first"] { await gate.pass() }
            if keys == ["boom"] {
                await failing.pass()
                throw Boom()
            }
            return Dictionary(uniqueKeysWithValues: keys.map { ($0, $0.count) })
        }
        let first = Task { try await lookups.find("first", run: run) }
        await Self.yield { !batches.withLock { $0.isEmpty } }
        #expect(batches.withLock { $0 } == [["first"]])
        let others = ["b", "cc", "b", "nope"].map { key in Task { try await lookups.find(key, run: run) } }
        await Self.yield { lookups.waiting >= 4 }
        #expect(lookups.waiting == 4)
        await gate.release()
        #expect(try await first.value == 5)
        var answers: [Int?] = []
        for other in others { answers.append(try await other.value) }
        #expect(answers == [1, 2, 1, 4])
        let second = batches.withLock { $0 }.dropFirst()
        #expect(second.count == 1)
        #expect(second.first.map { Set($0) } == ["b", "cc", "nope"])
        #expect(second.first?.count == 3)
        // A batch that fails: the lookups queued behind it get its error at once, not a wait of
        // their own.
        let boom = Task { try await lookups.find("boom", run: run) }
        await Self.yield { batches.withLock { $0.last == ["boom"] } }
        let behind = ["x", "y"].map { key in Task { try await lookups.find(key, run: run) } }
        await Self.yield { lookups.waiting >= 2 }
        #expect(lookups.waiting == 2)
        await failing.release()
        for task in [boom] + behind {
            await #expect(throws: Boom.self) { try await task.value }
        }
        #expect(batches.withLock { $0.last } == ["boom"])
        #expect(try await lookups.find("after", run: run) == 5)
    }

    /// Forty sessions looked up at once, some expired, some signed out: each lookup finds its own
    /// player or nothing.
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func manySessionsLookedUpAtOnce(_ backend: AccountStoreTests.Backend) async throws {
        let store = try await AccountStoreTests().store(backend)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var expected: [String: PlayerID?] = [:]
        for i in 0..<40 {
            let player = try await store.addPlayer(name: "Player \(i)", email: nil, at: now).id
            let hash = String(repeating: String(i % 10), count: 8) + "-\(i)"
            let expires = now.addingTimeInterval(i % 5 == 0 ? -1 : 3600)
            try await store.createSession(tokenHash: hash, player: player, expiresAt: expires, at: now)
            expected[hash] = i % 5 == 0 ? nil : player
        }
        let signedOut = expected.keys.sorted().first { expected[$0]! != nil }!
        try await store.deleteSession(tokenHash: signedOut)
        expected[signedOut] = PlayerID?.none
        expected["unknown"] = PlayerID?.none
        let found = try await withThrowingTaskGroup(of: (String, PlayerID?).self) { group in
            for hash in expected.keys {
                group.addTask { (hash, try await store.session(tokenHash: hash, at: now)?.player.id) }
            }
            var found: [String: PlayerID?] = [:]
            for try await (hash, player) in group { found[hash] = player }
            return found
        }
        #expect(found.count == 41)
        #expect(found.values.filter { $0 != nil }.count == 31)
        for (hash, player) in expected { #expect(found[hash]! == player, "\(hash)") }
    }

    /// Sessions whose last-use stamp is stale, used many at once: the stamps share writes (a crowd's
    /// first requests at an event's start), and each session is stamped with its own request's time.
    @Test(arguments: [AccountStoreTests.Backend.spatiaLite, .postGIS])
    func staleStampsOfManySessionsAtOnceAreEachWritten(_ backend: AccountStoreTests.Backend) async throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let store: any LeagueStore
        let written: @Sendable () throws -> String
        switch backend {
        case .postGIS:
            let url = try PostgresCluster.shared().database()
            store = try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait)
            let name = String(url.split(separator: "/").last!)
            written = {
                try PostgresCluster.shared().psql(
                    name, "SELECT token_hash || ' ' || last_used_at FROM sessions"
                ).stdout
            }
        default:
            let path = try TestSupport.temporaryDirectory("vsh-stamps").appendingPathComponent("v.sqlite")
                .path
            store = try SpatiaLiteStore(path: path)
            written = {
                try TestSupport.run(
                    "/usr/bin/python3",
                    [
                        "-c",
                        "import sqlite3, sys\nfor h, t in sqlite3.connect(sys.argv[1]).execute("
                            + "'SELECT token_hash, last_used_at FROM sessions'): print(h, t)",
                        path,
                    ]
                ).stdout
            }
        }
        // SpatiaLite writes the stamps later (with a check-in group, else on their own): long enough
        // later here to see that the requests did not wait for them.
        let spatiaLite = store as? SpatiaLiteStore
        spatiaLite?.lastUseStampDelay.withLock { $0 = .seconds(3_600) }
        var uses: [String: Date] = [:]
        for i in 0..<30 {
            let player = try await store.addPlayer(name: "Stamp \(i)", email: nil, at: t0).id
            try await store.createSession(
                tokenHash: "stamp-\(i)", player: player, expiresAt: t0.addingTimeInterval(86_400), at: t0)
            uses["stamp-\(i)"] = t0.addingTimeInterval(3_600 + Double(i))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (hash, time) in uses {
                group.addTask {
                    let session = try await store.session(tokenHash: hash, at: time)
                    #expect(session != nil)
                }
            }
            try await group.waitForAll()
        }
        func stamps() throws -> [String: String] {
            var stamps: [String: String] = [:]
            for line in try written().split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2 { stamps[String(parts[0])] = String(parts[1]) }
            }
            return stamps
        }
        if let spatiaLite {
            #expect(try stamps().values.allSatisfy { $0 == RFC3339.format(t0) }, "the requests waited")
            try await spatiaLite.flushLastUseStamps()
        }
        let after = try stamps()
        #expect(after.count == 30)
        for (hash, time) in uses { #expect(after[hash] == RFC3339.format(time), "\(hash)") }
    }

    /// Session lookups among other reads, many more at once than the store has reader connections
    /// and Swift's pool has threads: every one finishes with its answer. (A SpatiaLite lookup that
    /// waited, on a thread of the pool, for one of the pool's readers, which other reads kept until
    /// their tasks ran again on that pool, stopped the service for good.)
    // The limit is far above what the test takes alone (2 s): the whole suite runs at once on two
    // cores, and a test's clock starts with the run (a one-minute limit was passed in CI).
    @Test(.timeLimit(.minutes(20)), arguments: AccountStoreTests.Backend.allCases)
    func sessionLookupsAmongManyReadsAllFinish(_ backend: AccountStoreTests.Backend) async throws {
        let store = try await AccountStoreTests().store(backend)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: now).id
        try await store.createSession(tokenHash: "ann", player: ann, expiresAt: now + 3600, at: now)
        let (sessions, players) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for i in 0..<400 {
                group.addTask {
                    if i % 2 == 0 {
                        return (
                            try await store.session(tokenHash: "ann", at: now)?.player.id == ann ? 1 : 0, 0
                        )
                    }
                    return (0, try await store.player(id: ann)?.name == "Ann" ? 1 : 0)
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        #expect(sessions == 200)
        #expect(players == 200)
    }

    /// SpatiaLite: the stamps that wait ride in the next check-in group's transaction (no durable
    /// write of their own); a stamp taken by a group that fails waits for the next write.
    @Test func aCheckInGroupWritesTheStampsThatWait() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-stamp-group")
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("v.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        store.lastUseStampDelay.withLock { $0 = .seconds(3_600) }
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: t0).id
        try await store.createSession(
            tokenHash: "ann-token", player: ann, expiresAt: t0.addingTimeInterval(86_400), at: t0)
        func stamp() throws -> String {
            try TestSupport.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute("
                        + "\"SELECT last_used_at FROM sessions WHERE token_hash = 'ann-token'\").fetchone()[0])",
                    path,
                ]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let later = t0.addingTimeInterval(3_600)
        #expect(try await store.session(tokenHash: "ann-token", at: later) != nil)
        #expect(try stamp() == RFC3339.format(t0))
        // A group that fails (a check-in of no player) keeps the stamp for the next write.
        await #expect(throws: (any Error).self) {
            _ = try await store.recordGroup(
                [keyedCheckIn(PlayerID(rawValue: 999), "k1", at: later) { _ in "" }],
                decide: rejectingEverything)
        }
        #expect(try stamp() == RFC3339.format(t0))
        _ = try await store.recordGroup(
            [keyedCheckIn(ann, "k2", at: later) { _ in "" }], decide: rejectingEverything)
        #expect(try stamp() == RFC3339.format(later))
    }
}
