import Foundation
import Synchronization
import Testing
import VSHCore
import VSHEngine
import VSHMemoryStore
import VSHSpatiaLite
import VSHTestSupport

/// The service's group commit on each backend: many submissions at once, each answered with its own
/// outcome, and one bad submission failing alone whatever group it lands in.
@Suite struct GroupCommitTests {
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func concurrentSubmissionsAreEachAnsweredAndABadOneFailsAlone(_ backend: AccountStoreTests.Backend)
        async throws
    {
        let store = try await AccountStoreTests().store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var players: [PlayerID] = []
        for i in 0..<8 {
            players.append(try await store.addPlayer(name: "Player \(i)", email: nil, at: t0).id)
        }
        let known = players
        let group = GroupCommit(store: store)
        let outcomes = await withTaskGroup(of: (Int, Result<Int64, LeagueError>?).self) { tasks in
            for n in 0..<41 {
                tasks.addTask {
                    // The 41st names a player nobody registered.
                    let player = n == 40 ? PlayerID(999) : known[n % known.count]
                    let request = Self.deviceFix(player, n, from: t0)
                    do {
                        guard case .recorded(let recorded, _) = try await group.submit(request) else {
                            return (n, nil)
                        }
                        return (n, .success(recorded.id))
                    } catch let error as LeagueError {
                        return (n, .failure(error))
                    } catch {
                        return (n, nil)
                    }
                }
            }
            return await tasks.reduce(into: [Int: Result<Int64, LeagueError>?]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == 41)
        var ids: [Int64] = []
        for n in 0..<40 {
            if case .success(let id)?? = outcomes[n] { ids.append(id) }
        }
        #expect(ids.count == 40)
        #expect(Set(ids).count == 40)
        if case .failure(let error)?? = outcomes[40] {
            #expect(error == .unknownPlayerID(PlayerID(999)))
        } else {
            Issue.record("the unknown player's check-in was not refused")
        }
        #expect(try await store.players().reduce(0) { $0 + $1.checkIns } == 40)
        #expect(await group.requests == 41)
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// The `n`th of a run of device-fix check-ins away from every stop, `n` seconds after `t0`.
    static func deviceFix(_ player: PlayerID, _ n: Int, from t0: Date) -> CheckInRequest {
        CheckInRequest(
            submission: Submission(
                player: player,
                evidence: .device(
                    position: Coordinate(unchecked: 36.1, -115.1), time: t0 + Double(n), accuracyMeters: 5),
                huntID: nil, receivedAt: t0 + 60),
            photoFile: nil)
    }

    /// A store of `backend` with the shipped hunts published at `t0`, and the hunts' files.
    static func published(_ backend: AccountStoreTests.Backend) async throws
        -> (store: any LeagueStore, sources: [HuntCatalog.Source])
    {
        let store = try await AccountStoreTests().store(backend)
        let sources = try HuntRevisionTests.sources(modified: t0)
        _ = try await store.publishFiles(sources, badges: nil, force: false, at: t0)
        return (store, sources)
    }

    /// A device-fix check-in at Strip Classics, through `group`: its decision, or nil when it was not recorded.
    static func checkIn(
        _ player: PlayerID, at time: Date, _ position: Coordinate, through group: GroupCommit
    ) async throws -> Decision? {
        let request = CheckInRequest(
            submission: Submission(
                player: player, evidence: .device(position: position, time: time, accuracyMeters: 5),
                huntID: "strip-classics", receivedAt: time + 5),
            photoFile: nil)
        guard case .recorded(let recorded, _) = try await group.submit(request) else { return nil }
        return recorded.decision
    }

    /// A publication that changes a stop's points counts from the next group of check-ins on: a
    /// store that keeps the hunts and the scoring catalog decoded between groups reads them again
    /// once the definitions changed.
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func aPublicationsPointsCountFromTheNextGroup(_ backend: AccountStoreTests.Backend) async throws {
        let (store, sources) = try await Self.published(backend)
        let t0 = Self.t0
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: t0).id
        let bob = try await store.addPlayer(name: "Bob", email: nil, at: t0).id
        let group = GroupCommit(store: store)
        func checkIn(_ player: PlayerID, at time: Date, _ position: (Double, Double) = (36.0815, -115.17273))
            async throws
        {
            let decision = try await Self.checkIn(
                player, at: time, Coordinate(unchecked: position.0, position.1), through: group)
            #expect(decision?.verdict == .accepted, "\(decision?.rules ?? [])")
        }
        func points(_ player: PlayerID) async throws -> Int? {
            try await store.players().first { $0.id == player }?.points
        }
        try await checkIn(ann, at: t0 + 60)
        #expect(try await points(ann) == 50)
        // The Welcome sign's 50 points become 57, and the Luxor Sphinx's 40 become 44, from the console.
        let strip = try #require(sources.first { $0.expectedID == "strip-classics" })
        var text = String(decoding: strip.bytes, as: UTF8.self)
        let fifty = try #require(text.range(of: "\"points\": 50,"))
        text.replaceSubrange(fifty, with: "\"points\": 57,")
        let sphinx = try #require(text.range(of: "\"id\": \"luxor-sphinx\""))
        let forty = try #require(text.range(of: "\"points\": 40,", range: sphinx.upperBound..<text.endIndex))
        text.replaceSubrange(forty, with: "\"points\": 44,")
        _ = try #require(
            try await store.publishFromConsole(
                huntID: "strip-classics", bytes: Array(text.utf8), by: "Mo", at: t0 + 120))
        try await checkIn(bob, at: t0 + 180)
        #expect(try await points(bob) == 57)
        // Ann goes on from her stored events, which the publication scored again (57 for the sign):
        // the Sphinx adds its new 44 (scoring's layout of the catalog, kept between groups, is
        // made again for the new definitions; one kept too long gave 40).
        try await checkIn(ann, at: t0 + 240, (36.0957, -115.1741))
        #expect(try await points(ann) == 57 + 44)
    }

    /// A publication that renames and grows a stop counts from the next group on, on every backend.
    /// (The rules measure a fix against the stop's own geofence and fall back to the nearest stop,
    /// so a covering lookup kept too long does not show here: `GeofenceIndexTests/
    /// theWritersKeptIndexAnswersAsSpatiaLiteAcrossDefinitions` holds SpatiaLite's to that.)
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func aPublicationsStopsCountFromTheNextGroup(_ backend: AccountStoreTests.Backend) async throws {
        let (store, sources) = try await Self.published(backend)
        let t0 = Self.t0
        let group = GroupCommit(store: store)
        func checkIn(_ name: String, latitude: Double, at time: Date) async throws -> Decision? {
            let player = try await store.addPlayer(name: name, email: nil, at: t0).id
            return try await Self.checkIn(
                player, at: time, Coordinate(unchecked: latitude, -115.17273), through: group)
        }
        // The Welcome sign spans 36.0809325-36.0822844 north.
        let before = try #require(try await checkIn("Ann", latitude: 36.0815, at: t0 + 60))
        #expect(before.verdict == .accepted, "\(before.rules)")
        #expect(before.stop?.id == "welcome-sign")
        // From the console: the sign's id becomes vegas-sign, and its north edge moves 80 m north.
        let strip = try #require(sources.first { $0.expectedID == "strip-classics" })
        let text = String(decoding: strip.bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "\"id\": \"welcome-sign\"").count == 2)
        #expect(text.components(separatedBy: "36.0822844").count == 3)
        let edited = text.replacingOccurrences(of: "\"id\": \"welcome-sign\"", with: "\"id\": \"vegas-sign\"")
            .replacingOccurrences(of: "36.0822844", with: "36.0830000")
        _ = try #require(
            try await store.publishFromConsole(
                huntID: "strip-classics", bytes: Array(edited.utf8), by: "Mo", at: t0 + 120))
        let renamed = try #require(try await checkIn("Bob", latitude: 36.0815, at: t0 + 180))
        #expect(renamed.verdict == .accepted, "\(renamed.rules)")
        #expect(renamed.stop?.id == "vegas-sign")
        let added = try #require(try await checkIn("Cy", latitude: 36.0826, at: t0 + 240))
        #expect(added.verdict == .accepted, "\(added.rules)")
        #expect(added.stop?.id == "vegas-sign")
        let beyond = try #require(try await checkIn("Di", latitude: 36.0836, at: t0 + 300))
        #expect(beyond.verdict != .accepted, "\(beyond.rules)")
    }

    /// Where several groups may be in flight (PostgreSQL), a player's check-ins never are in two
    /// of them, and none overtakes an earlier one of the same player.
    /// Groups are decided at the priority the store asks for (high, for the memory store as for
    /// SQLite), not at the priority of the requests waiting for them (low here; the server's run at
    /// the default one): the writer is the one serial stage, and at the requests' priority its next
    /// group queued behind their tasks.
    @Test func groupsAreDecidedAtTheWritersPriorityWhateverTheRequests() async throws {
        let seen = PrioritySeen()
        var verifier = Verifier()
        verifier.rules.append(PriorityRecordingRule(seen: seen))
        let store = MemoryStore()
        let t0 = Self.t0
        var players: [PlayerID] = []
        for i in 0..<6 {
            players.append(try await store.addPlayer(name: "Player \(i)", email: nil, at: t0).id)
        }
        let group = GroupCommit(store: store, verifier: verifier)
        let answered = try await withThrowingTaskGroup(of: Bool.self) { tasks in
            for (n, player) in players.enumerated() {
                tasks.addTask(priority: .low) {
                    let request = Self.deviceFix(player, n, from: t0)
                    if case .recorded = try await group.submit(request) { return true }
                    return false
                }
            }
            return try await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == players.count)
        let priorities = seen.priorities
        #expect(priorities.count == players.count)
        #expect(priorities.allSatisfy { $0 == store.groupPriority }, "decided at \(priorities)")
        #expect(store.groupPriority == .high)
        #expect(group.priority == .high)
    }

    @Test func aPlayersCheckInsStayInArrivalOrderAcrossGroupsInFlight() {
        let (a, b, c, d) = (PlayerID(1), PlayerID(2), PlayerID(3), PlayerID(4))
        // Nothing in flight: the first ones, in order, up to the limit.
        #expect(GroupCommit.select([a, b, a, c], busy: [], maxGroup: 10) == [0, 1, 2, 3])
        #expect(GroupCommit.select([a, b, a, c], busy: [], maxGroup: 2) == [0, 1])
        // b is being written: b's check-ins wait, the others go.
        #expect(GroupCommit.select([b, a, b, c], busy: [b], maxGroup: 10) == [1, 3])
        // The limit holds a back: a's later check-in waits too, though the group has room then.
        #expect(GroupCommit.select([a, b, c, a, d], busy: [], maxGroup: 1) == [0])
        #expect(GroupCommit.select([b, a, c, a, d], busy: [], maxGroup: 2) == [0, 1])
        #expect(GroupCommit.select([b, c, d, b], busy: [d], maxGroup: 10) == [0, 1, 3])
        // Everyone waiting is busy: no group.
        #expect(GroupCommit.select([a, a], busy: [a], maxGroup: 10).isEmpty)
    }
}

/// The priorities a rule was checked at.
final class PrioritySeen: Sendable {
    private let seen = Mutex<[TaskPriority]>([])
    func record(_ priority: TaskPriority) { seen.withLock { $0.append(priority) } }
    var priorities: [TaskPriority] { seen.withLock { $0 } }
}

/// A test-only rule that passes every check-in and notes the priority of the task deciding it.
struct PriorityRecordingRule: VerificationRule {
    let seen: PrioritySeen
    var rule: Rule { Rule(rawValue: "priority_seen") }

    func check(_ context: inout VerificationContext) -> RuleResult {
        seen.record(Task.currentPriority)
        return RuleResult(rule, .passed, "noted")
    }
}
