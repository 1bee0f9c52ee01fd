import Foundation
import Synchronization
import Testing
import VSHCore
import VSHMemoryStore
import VSHPostGIS
import VSHSpatiaLite
import VSHTestSupport

/// The account store's behaviour, the same test on each backend.
@Suite struct AccountStoreTests {
    enum Backend: String, CaseIterable, Sendable { case spatiaLite, memory, postGIS }

    func store(_ backend: Backend) async throws -> any LeagueStore {
        switch backend {
        case .memory: return MemoryStore()
        case .postGIS:
            return try await PostGISStore(
                url: try PostgresCluster.shared().database(), connectionWait: PostgresCluster.connectionWait)
        case .spatiaLite:
            return try SpatiaLiteStore(
                path: TestSupport.temporaryDirectory("vsh-accounts").appendingPathComponent("v.sqlite").path)
        }
    }

    @Test(arguments: Backend.allCases) func passwordsRolesAndSessions(_ backend: Backend) async throws {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.credentials(named: "Ann") == nil)
        let ann = try await store.addPlayer(name: "Ann Lee", email: "ann@example.org", at: t0)
        var credentials = try #require(try await store.credentials(named: "ann lee"))
        #expect(credentials.player == ann)
        #expect(credentials.passwordHash == nil)
        #expect(credentials.role == .player)

        try await store.setPasswordHash("$2b$12$hash-one", player: ann.id)
        try await store.setRole(.moderator, player: ann.id)
        credentials = try #require(try await store.credentials(named: "ANN LEE"))
        #expect(credentials.passwordHash == "$2b$12$hash-one")
        #expect(credentials.role == .moderator)

        try await store.createSession(tokenHash: "h1", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await store.createSession(tokenHash: "h2", player: ann.id, expiresAt: t0 + 3600, at: t0)
        let session = try #require(try await store.session(tokenHash: "h1", at: t0 + 60))
        #expect(session.player.id == ann.id)
        #expect(session.role == .moderator)
        // The organiser role (a migration widened each schema's constraint to take it).
        try await store.setRole(.organiser, player: ann.id)
        #expect(try await store.credentials(named: "Ann Lee")?.role == .organiser)
        #expect(try await store.session(tokenHash: "h1", at: t0 + 60)?.role.mayModerate == true)
        try await store.setRole(.moderator, player: ann.id)
        #expect(try await store.session(tokenHash: "h1", at: t0 + 3600) == nil)  // expired
        #expect(try await store.session(tokenHash: "nope", at: t0) == nil)
        try await store.deleteSession(tokenHash: "h1")
        #expect(try await store.session(tokenHash: "h1", at: t0 + 60) == nil)
        #expect(try await store.session(tokenHash: "h2", at: t0 + 60) != nil)
        // A new password ends every session.
        try await store.setPasswordHash("$2b$12$hash-two", player: ann.id)
        #expect(try await store.session(tokenHash: "h2", at: t0 + 60) == nil)

        // Registering with a password is one step: a refused name or address leaves nothing behind.
        let bo = try await store.addPlayer(
            name: "Bo", email: "bo@example.org", passwordHash: "$2b$12$bo", at: t0)
        #expect(try await store.credentials(named: "bo")?.passwordHash == "$2b$12$bo")
        #expect(try await store.credentials(named: "bo")?.player == bo)
        await #expect(throws: LeagueError.nameTaken(name: "BO")) {
            try await store.addPlayer(name: "BO", email: nil, passwordHash: "x", at: t0)
        }
        await #expect(throws: LeagueError.invalidEmail("no address")) {
            try await store.addPlayer(name: "Cy", email: "no address", passwordHash: "x", at: t0)
        }
        #expect(try await store.credentials(named: "Cy") == nil)

        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await store.setRole(.moderator, player: PlayerID(99))
        }
        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await store.setPasswordHash("x", player: PlayerID(99))
        }
    }

    /// Names that look alike (Unicode TR 39's confusable skeletons, issue 32): Greek "ΒΟΒ" and
    /// Cyrillic "ВОВ" beside "BOB", "AIice" (a capital I) beside "Alice", "Tom" beside "Torn";
    /// the same name in another case stays "taken"; names that merely resemble pass.
    @Test(arguments: Backend.allCases) func namesThatLookLikeAnothersAreRefused(_ backend: Backend)
        async throws
    {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.addPlayer(name: "BOB", email: nil, at: t0)
        try await store.addPlayer(name: "Alice", email: nil, at: t0)
        try await store.addPlayer(name: "Torn", email: nil, at: t0)
        for (name, existing) in [
            ("\u{392}\u{39F}\u{392}", "BOB"), ("\u{412}\u{41E}\u{412}", "BOB"), ("bob", nil),
            ("AIice", "Alice"), ("ALICE", nil), ("Tom", "Torn"),
        ] {
            let expected =
                existing.map { LeagueError.nameLooksLike(name: name, existing: $0) }
                ?? LeagueError.nameTaken(name: name)
            await #expect(throws: expected) { try await store.addPlayer(name: name, email: nil, at: t0) }
            #expect(try await store.credentials(named: name)?.player.name != name)
        }
        for name in ["Bobby", "Alicia", "Tim", "\u{3B2}\u{3BF}\u{3C3}"] {
            #expect(try await store.addPlayer(name: name, email: nil, at: t0).name == name)
        }
    }

    @Test(arguments: Backend.allCases) func emailAvatarAndPasswordResets(_ backend: Backend) async throws {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = try await store.addPlayer(
            name: "Ann", email: "ann@example.org", passwordHash: "old", at: t0)
        let bo = try await store.addPlayer(name: "Bo", email: "ANN@example.org", passwordHash: "bo", at: t0)
        #expect(try await store.players(withEmail: "Ann@Example.org").map(\.id) == [ann.id, bo.id])
        try await store.setEmail("bo@example.org", player: bo.id)
        #expect(try await store.players(withEmail: "ann@example.org").map(\.id) == [ann.id])
        await #expect(throws: LeagueError.invalidEmail("nope")) {
            try await store.setEmail("nope", player: bo.id)
        }
        #expect(try await store.player(id: bo.id)?.email == "bo@example.org")

        #expect(try await store.avatar(player: ann.id) == nil)
        try await store.setAvatar("ab/abcd.jpg", player: ann.id)
        #expect(try await store.avatar(player: ann.id) == "ab/abcd.jpg")
        // A leaderboard's pictures in one read: those without one, and unknown ids, are absent.
        #expect(
            try await store.avatars(players: [bo.id, ann.id, PlayerID(99)]) == [ann.id: "ab/abcd.jpg"])
        #expect(try await store.avatars(players: []).isEmpty)
        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await store.setAvatar("x", player: PlayerID(99))
        }

        // A reset token works once, before it expires, and ends every session.
        try await store.createSession(tokenHash: "s1", player: ann.id, expiresAt: t0 + 86_400, at: t0)
        try await store.createPasswordReset(tokenHash: "r1", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await store.createPasswordReset(tokenHash: "r2", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await store.createPasswordReset(tokenHash: "r3", player: bo.id, expiresAt: t0 + 60, at: t0)
        #expect(try await store.resetPassword(tokenHash: "r3", passwordHash: "late", at: t0 + 61) == nil)
        #expect(try await store.credentials(named: "Bo")?.passwordHash == "bo")
        #expect(try await store.resetPassword(tokenHash: "nope", passwordHash: "x", at: t0) == nil)
        #expect(try await store.resetPassword(tokenHash: "r1", passwordHash: "new", at: t0 + 10) == ann.id)
        #expect(try await store.credentials(named: "Ann")?.passwordHash == "new")
        #expect(try await store.session(tokenHash: "s1", at: t0 + 20) == nil)
        #expect(try await store.resetPassword(tokenHash: "r1", passwordHash: "again", at: t0 + 20) == nil)
        // The other open token of the same player is used up too.
        #expect(try await store.resetPassword(tokenHash: "r2", passwordHash: "again", at: t0 + 20) == nil)
        #expect(try await store.credentials(named: "Ann")?.passwordHash == "new")
    }

    /// Retry keys: one check-in per player and key, within a group and across groups.
    @Test(arguments: Backend.allCases) func retryKeysRecordOnce(_ backend: Backend) async throws {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: t0)
        let bo = try await store.addPlayer(name: "Bo", email: nil, at: t0)
        func request(_ player: PlayerID, _ key: String?) -> CheckInRequest {
            keyedCheckIn(player, key, at: t0) { "answer #\($0.id)" }
        }
        let decide = rejectingEverything
        let first = try await store.recordGroup(
            [request(ann.id, "k1"), request(ann.id, "k1"), request(bo.id, "k1"), request(ann.id, nil)],
            decide: decide)
        var recordedIDs: [Int64] = []
        for outcome in first {
            if case .recorded(let r, _) = outcome { recordedIDs.append(r.id) }
        }
        #expect(recordedIDs.count == 3)
        guard case .recorded(let annFirst, let answer?) = first[0], case .repeated(let again) = first[1]
        else {
            Issue.record("expected a recorded check-in, then its repeat")
            return
        }
        #expect(answer == "answer #\(annFirst.id)")
        #expect(again == IdempotentAnswer(checkInID: annFirst.id, fingerprint: "fp-k1", answer: answer))
        #expect(try await store.idempotentAnswer(player: ann.id, key: "k1") == again)
        #expect(try await store.idempotentAnswer(player: ann.id, key: "k2") == nil)
        // A later group: the key is remembered.
        let later = try await store.recordGroup(
            [request(ann.id, "k1"), request(ann.id, "k2")], decide: decide)
        guard case .repeated(let remembered) = later[0], case .recorded = later[1] else {
            Issue.record("expected the key to be remembered")
            return
        }
        #expect(remembered.checkInID == annFirst.id)
        #expect(try await store.players().reduce(0) { $0 + $1.checkIns } == 4)
    }

    /// Retry keys looked up many at once (on PostGIS, lookups that arrive together share one
    /// statement): each lookup gets the answer kept under its own player and key, or nothing,
    /// keys with a bar in them included.
    @Test(arguments: Backend.allCases) func manyRetryKeysLookedUpAtOnce(_ backend: Backend) async throws {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var players: [PlayerID] = []
        for name in ["Ann", "Bo", "Cy"] {
            players.append(try await store.addPlayer(name: name, email: nil, at: t0).id)
        }
        let keys = ["k1", "k2", "a|b", "|", "12|k1"]
        var requests: [CheckInRequest] = []
        for (p, player) in players.enumerated() {
            for key in keys.prefix(p + 3) {
                requests.append(keyedCheckIn(player, key, at: t0) { _ in "\(p) \(key)" })
            }
        }
        _ = try await store.recordGroup(requests, decide: rejectingEverything)
        var expected: [String: String?] = [:]
        var asked: [(PlayerID, String)] = []
        for (p, player) in players.enumerated() {
            for (k, key) in (keys + ["k3", "a"]).enumerated() {
                asked.append((player, key))
                expected.updateValue(k < p + 3 ? "\(p) \(key)" : nil, forKey: "\(player.rawValue) \(key)")
            }
        }
        #expect(expected.count == 21)
        #expect(expected.values.filter { $0 != nil }.count == 12)
        let found = try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for _ in 0..<3 {
                for (player, key) in asked {
                    group.addTask {
                        let answer = try await store.idempotentAnswer(player: player, key: key)
                        return ("\(player.rawValue) \(key)", answer?.answer)
                    }
                }
            }
            var found: [String: [String?]] = [:]
            for try await (slot, answer) in group { found[slot, default: []].append(answer) }
            return found
        }
        #expect(found.count == expected.count)
        for (slot, answer) in expected { #expect(found[slot] == [answer, answer, answer], "\(slot)") }
    }

    /// Near copies among the check-ins of one group (one transaction): each photo is compared
    /// with those recorded before it in the group, other players' only, the same image or
    /// pixels aside (those are exact copies, another rule); and with a later group's. (Hashes
    /// are hex, as the SpatiaLite index keys them by their first 16 digits.)
    @Test(arguments: Backend.allCases) func nearCopiesWithinAGroup(_ backend: Backend) async throws {
        let store = try await store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: t0)
        let bo = try await store.addPlayer(name: "Bo", email: nil, at: t0)
        func request(_ player: PlayerID, image: String, pixels: String?, hash: UInt64) -> CheckInRequest {
            let photo = Photo(
                metadata: PhotoMetadata(), fileSHA256: "f-" + image, imageSHA256: image, byteCount: 100,
                pixelSHA256: pixels, perceptualHash: hash)
            return CheckInRequest(
                submission: Submission(player: player, evidence: .photo(photo), huntID: nil, receivedAt: t0),
                photoFile: nil)
        }
        let seen = Mutex<[NearCopy?]>([])
        let decide: CheckInDecider = { _, facts in
            seen.withLock { $0.append(facts.nearCopy) }
            return Decision(verdict: .rejected, rules: [], hunt: nil, stop: nil, points: 0, fix: nil)
        }
        let base: UInt64 = 0x0123_4567_89AB_CDEF
        let first = try await store.recordGroup(
            [
                request(ann.id, image: "a1", pixels: "c1", hash: base),  // nothing before it
                request(ann.id, image: "a2", pixels: "c2", hash: base ^ 1),  // Ann's own: not a copy
                request(bo.id, image: "b1", pixels: "d1", hash: base ^ 0b11),  // Ann's two: 2 and 1 bits
                request(bo.id, image: "a1", pixels: "d2", hash: base),  // the same image: not here
                request(bo.id, image: "b3", pixels: "c2", hash: base ^ 1),  // the same pixels as a2
                request(bo.id, image: "b4", pixels: nil, hash: ~base),  // far from all
            ], decide: decide)
        let ids = first.compactMap { outcome -> Int64? in
            if case .recorded(let r, _) = outcome { return r.id }
            return nil
        }
        #expect(ids.count == 6)
        let answers = seen.withLock { $0 }
        #expect(answers.count == 6)
        guard ids.count == 6, answers.count == 6 else { return }
        #expect(answers[0] == nil && answers[1] == nil)
        #expect(answers[2] == NearCopy(checkInID: ids[1], bits: 1))  // nearer than Ann's first (2 bits)
        #expect(answers[3] == NearCopy(checkInID: ids[1], bits: 1))
        #expect(answers[4] == NearCopy(checkInID: ids[0], bits: 1))
        #expect(answers[5] == nil)
        // A later group sees the first one's as committed.
        seen.withLock { $0 = [] }
        _ = try await store.recordGroup(
            [request(ann.id, image: "a9", pixels: "c9", hash: base ^ 0b111)], decide: decide)
        #expect(seen.withLock { $0 } == [NearCopy(checkInID: ids[2], bits: 1)])
    }
}
