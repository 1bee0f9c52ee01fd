import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHPhoto
import VSHSpatiaLite
import VSHTestSupport

/// Scoring on real check-ins: device fixes at the shipped stops go through the
/// verifier into a real SpatiaLite database, and the leaderboard, profile and
/// badges are read back.
struct League {
    let store: SpatiaLiteStore
    let service: CheckInService
    let folder: URL

    /// Landmark coordinates by stop id (Fixtures/landmarks.csv).
    static let landmarks: [String: Coordinate] = {
        let text =
            (try? String(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/landmarks.csv"),
                encoding: .utf8)) ?? ""
        var result: [String: Coordinate] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", maxSplits: 4)
            result[String(f[1])] = Coordinate(unchecked: Double(f[2])!, Double(f[3])!)
        }
        return result
    }()

    init(badges: String? = nil) async throws {
        folder = try TestSupport.temporaryDirectory("vsh-league")
        let hunts = folder.appendingPathComponent("hunts")
        try TestSupport.copyShippedHunts(to: hunts)
        if let badges { try Data(badges.utf8).write(to: hunts.appendingPathComponent("badges.json")) }
        let path = folder.appendingPathComponent("vsh.sqlite").path
        store = try SpatiaLiteStore(path: path)
        try await store.sync(directory: hunts.path)
        service = CheckInService(store: store, photos: FilePhotoStore.beside(databasePath: path))
    }

    func add(_ players: String...) async throws {
        for p in players {
            try await store.addPlayer(name: p, email: nil, at: Date(timeIntervalSince1970: 0))
        }
    }

    /// The id of the player going by `name`.
    func id(_ name: String) async throws -> PlayerID { try await store.requirePlayer(named: name).id }

    /// A check-in at a stop's landmark at `time` (UTC), submitted a minute later.
    @discardableResult
    func visit(_ player: String, _ stop: String, at time: String) async throws -> RecordedCheckIn {
        let when = RFC3339.parse(time)!
        return try await service.checkIn(
            player: try await id(player), position: Self.landmarks[stop]!, time: when, accuracyMeters: 5,
            huntID: nil,
            now: when.addingTimeInterval(60))
    }

    func points(_ player: String) async throws -> Int {
        try await store.players().first { $0.name == player }!.points
    }

    func profile(_ player: String) async throws -> PlayerProfile {
        try await store.profile(player: try await id(player), recent: 10)
    }

    func badges(_ player: String) async throws -> [String] { try await profile(player).badges.map(\.id) }

    /// Removes the league's folder.
    func remove() { TestSupport.remove(folder) }

    static let downtown = [
        "fremont-street-experience", "mob-museum", "neon-museum", "mormon-fort", "container-park",
        "smith-center", "arts-district",
    ]
}

@Suite struct ScoringIntegrationTests {
    @Test func stopPointsBonusAndBadgesAddUp() async throws {
        let league = try await League()
        try await league.add("Dee")
        // Downtown in walking order, 12 minutes apart from 10:00 Las Vegas time.
        var minute = 0
        var last: RecordedCheckIn?
        for stop in League.downtown {
            last = try await league.visit(
                "Dee", stop, at: "2026-11-21T18:\(String(format: "%02d", minute)):00Z")
            minute += 8
        }
        #expect(last?.decision.verdict == .accepted)
        // The last check-in completes the hunt: the bonus and three badges come with it.
        #expect(
            last.map { Set($0.awards.map { $0.badgeID ?? "bonus" }) } == [
                "bonus", "glitter-gulch", "easy-street",
            ])
        // 360 for the stops + 150 bonus + first-roll 10 + high-roller 25 + sin-city-sprint 40 + glitter-gulch 50 + easy-street 25.
        #expect(try await league.points("Dee") == 660)
        #expect(
            try await league.badges("Dee") == [
                "first-roll", "high-roller", "sin-city-sprint", "glitter-gulch", "easy-street",
            ])
        let profile = try await league.profile("Dee")
        #expect(
            profile.hunts.map { "\($0.huntID) \($0.visited)/\($0.total) \($0.completedAt != nil)" } == [
                "downtown-fremont 7/7 true", "strip-classics 0/10 false",
            ])
    }

    @Test func equalPointsShareARankAndWhoGotThereFirstIsListedFirst() async throws {
        let league = try await League()
        try await league.add("Ann", "Bo", "Cy", "Dee")
        try await league.visit("Bo", "sphere", at: "2026-11-21T18:00:00Z")  // 70 + 10
        try await league.visit("Cy", "welcome-sign", at: "2026-11-21T18:30:00Z")  // 50 + 10, first
        try await league.visit("Ann", "welcome-sign", at: "2026-11-21T19:00:00Z")  // 50 + 10, later
        try await league.visit("Dee", "luxor-sphinx", at: "2026-11-21T18:10:00Z")  // 40 + 10
        let board = try await league.store.leaderboard()
        #expect(
            board.map { "\($0.rank) \($0.player) \($0.points)" } == [
                "1 Bo 80", "2 Cy 60", "2 Ann 60", "4 Dee 50",
            ])
        #expect(try await league.store.leaderboard(limit: 2).map(\.player) == ["Bo", "Cy"])
    }

    @Test func windowsAndHuntsFilterWhatCounts() async throws {
        let league = try await League()
        try await league.add("Ann", "Bo")
        try await league.visit("Ann", "welcome-sign", at: "2026-11-21T18:00:00Z")
        try await league.visit("Ann", "fremont-street-experience", at: "2026-11-21T20:00:00Z")
        try await league.visit("Bo", "sphere", at: "2026-11-21T19:00:00Z")
        let evening = try await league.store.leaderboard(
            since: RFC3339.parse("2026-11-21T18:30:00Z"), until: RFC3339.parse("2026-11-21T21:00:00Z"))
        #expect(evening.map { "\($0.player) \($0.points)" } == ["Bo 80", "Ann 80"])
        let downtown = try await league.store.leaderboard(huntID: "downtown-fremont")
        #expect(downtown.map { "\($0.player) \($0.points) \($0.stopsVisited)" } == ["Ann 80 1"])
        await #expect(
            throws: LeagueError.unknownHunt(id: "atlantis", known: ["downtown-fremont", "strip-classics"])
        ) {
            try await league.store.leaderboard(huntID: "atlantis")
        }
    }

    @Test func revokingACheckInWithdrawsItsPointsCompletionAndBadgesAndRanksChange() async throws {
        let league = try await League()
        try await league.add("Xena", "Yuri")
        var lastX: RecordedCheckIn?
        for (index, stop) in League.downtown.enumerated() {
            lastX = try await league.visit(
                "Xena", stop, at: "2026-11-21T18:\(String(format: "%02d", index * 8)):00Z")
            try await league.visit(
                "Yuri", stop, at: "2026-11-21T18:\(String(format: "%02d", index * 8 + 1)):00Z")
        }
        #expect(
            try await league.store.leaderboard().map { "\($0.rank) \($0.player)" } == ["1 Xena", "1 Yuri"])
        let outcome = try await league.store.review(
            lastX!.id, .revoked, reason: "photo of a photo", moderator: "mo", at: Date())
        #expect(outcome.state == .revoked)
        // arts-district 30, bonus 150, glitter-gulch 50, easy-street 25 withdrawn.
        #expect(try await league.points("Xena") == 660 - 255)
        #expect(try await league.badges("Xena") == ["first-roll", "high-roller", "sin-city-sprint"])
        #expect(try await league.profile("Xena").huntsCompleted == 0)
        #expect(
            try await league.store.leaderboard().map {
                "\($0.rank) \($0.player) \($0.points) \($0.huntsCompleted)"
            } == ["1 Yuri 660 1", "2 Xena 405 0"])
        // A revoked check-in cannot be revoked or approved again.
        await #expect(throws: LeagueError.checkInState(id: lastX!.id, state: .revoked, required: .accepted)) {
            try await league.store.review(lastX!.id, .revoked, reason: "again", moderator: "mo", at: Date())
        }
        // Visiting again earns it all back, stamped with the new check-in.
        try await league.visit("Xena", "arts-district", at: "2026-11-21T19:30:00Z")
        #expect(try await league.points("Xena") == 660)
    }

    @Test func orderedHuntsPayTheBonusOnlyInOrder() async throws {
        let league = try await League()
        var doc = try String(
            contentsOf: league.folder.appendingPathComponent("hunts/downtown-fremont.geojson"),
            encoding: .utf8)
        doc = doc.replacingOccurrences(of: "\"ordered\": false", with: "\"ordered\": true")
        try Data(doc.utf8).write(to: league.folder.appendingPathComponent("hunts/downtown-fremont.geojson"))
        try await league.store.sync(directory: league.folder.appendingPathComponent("hunts").path)
        try await league.add("Ann")
        // The second stop first: the verifier refuses it (stop_order).
        #expect(
            try await league.visit("Ann", "mob-museum", at: "2026-11-21T18:00:00Z").decision.verdict
                == .rejected)
        for (index, stop) in League.downtown.enumerated() {
            #expect(
                try await league.visit(
                    "Ann", stop, at: "2026-11-21T18:\(String(format: "%02d", 10 + index * 6)):00Z"
                ).decision.verdict == .accepted)
        }
        #expect(try await league.profile("Ann").huntsCompleted == 1)
    }

    @Test func nightOwlEarlyBirdAndConsecutiveDaysUseTheHuntsLocalTime() async throws {
        let league = try await League()
        try await league.add("Owl", "Lark", "Regular")
        // 23:30 in Las Vegas is 07:30 UTC the next day.
        try await league.visit("Owl", "sphere", at: "2026-11-22T07:30:00Z")
        #expect(try await league.badges("Owl").contains("night-owl"))
        // 06:15 in Las Vegas is 14:15 UTC: early bird, not night owl.
        try await league.visit("Lark", "sphere", at: "2026-11-21T14:15:00Z")
        #expect(try await league.badges("Lark") == ["first-roll", "early-bird"])
        // Noon on three days in a row (Las Vegas days).
        try await league.visit("Regular", "welcome-sign", at: "2026-11-20T20:00:00Z")
        try await league.visit("Regular", "sphere", at: "2026-11-21T20:00:00Z")
        #expect(try await !league.badges("Regular").contains("what-happens-in-vegas"))
        try await league.visit("Regular", "high-roller", at: "2026-11-22T20:00:00Z")
        #expect(try await league.badges("Regular").contains("what-happens-in-vegas"))
    }

    @Test func everyKindOfBadgeRuleFiresOnce() async throws {
        let badges = """
            {"badges": [
              {"id": "first", "name": "First", "points": 1, "rule": {"kind": "first_checkin"}},
              {"id": "three-stops", "name": "Three", "points": 2, "rule": {"kind": "stops_visited", "count": 3}},
              {"id": "one-hunt", "name": "One hunt", "points": 3, "rule": {"kind": "hunts_completed", "count": 1}},
              {"id": "downtown", "name": "Downtown", "points": 4, "rule": {"kind": "hunt_completed", "hunt": "downtown-fremont"}},
              {"id": "all-easy", "name": "All easy", "points": 5, "rule": {"kind": "difficulty_completed", "difficulty": "easy"}},
              {"id": "mornings", "name": "Two mornings", "points": 6, "rule": {"kind": "time_window", "from": "09:00", "to": "12:00", "count": 2}},
              {"id": "quick-four", "name": "Quick four", "points": 7, "rule": {"kind": "stops_within", "count": 4, "hours": 1}},
              {"id": "two-days", "name": "Two days", "points": 8, "rule": {"kind": "consecutive_days", "days": 2}}
            ]}
            """
        let league = try await League(badges: badges)
        try await league.add("Ann")
        // Day one, 10:00-10:30 local: four stops in 30 minutes.
        for (index, stop) in League.downtown.prefix(4).enumerated() {
            try await league.visit("Ann", stop, at: "2026-11-21T18:\(String(format: "%02d", index * 10)):00Z")
        }
        #expect(try await league.badges("Ann") == ["first", "mornings", "three-stops", "quick-four"])
        // Day two: the rest of Downtown (completing it), afternoon.
        for (index, stop) in League.downtown.dropFirst(4).enumerated() {
            try await league.visit("Ann", stop, at: "2026-11-22T22:\(String(format: "%02d", index * 10)):00Z")
        }
        let earned = try await league.profile("Ann").badges
        #expect(
            earned.map(\.id) == [
                "first", "mornings", "three-stops", "quick-four", "two-days", "one-hunt", "downtown",
                "all-easy",
            ])
        #expect(earned.allSatisfy { $0.checkInID > 0 })
        // Each once: 1+2+...+8 = 36 on top of 360 and the 150 bonus.
        #expect(try await league.points("Ann") == 360 + 150 + 36)
    }

    @Test func rejectedAndPendingCheckInsEarnNothingUntilApproved() async throws {
        let league = try await League()
        try await league.add("Ann")
        let poor = try await league.service.checkIn(
            player: try await league.id("Ann"), position: League.landmarks["sphere"]!,
            time: RFC3339.parse("2026-11-21T18:00:00Z")!, accuracyMeters: 120,
            huntID: nil, now: RFC3339.parse("2026-11-21T18:01:00Z")!)
        #expect(poor.decision.verdict == .pending)
        #expect(try await league.points("Ann") == 0)
        let approved = try await league.store.review(
            poor.id, .approved, reason: "ok", moderator: "mo", at: Date())
        #expect(approved.pointsChange == 80)
        #expect(try await league.points("Ann") == 80)
    }

    /// An approval reports what the player's total actually changed by: approving an earlier
    /// check-in moves the first-check-in badge onto it from a later one, so the approved
    /// check-in's own events (stop + badge) are more than the player gained (the stop).
    @Test func anApprovalReportsThePlayersRealGain() async throws {
        let league = try await League()
        defer { league.remove() }
        try await league.add("Ann")
        let poor = try await league.service.checkIn(
            player: try await league.id("Ann"), position: League.landmarks["fremont-street-experience"]!,
            time: RFC3339.parse("2026-11-21T18:00:00Z")!, accuracyMeters: 120,
            huntID: nil, now: RFC3339.parse("2026-11-21T18:01:00Z")!)
        #expect(poor.decision.verdict == .pending)
        let later = try await league.visit("Ann", "mob-museum", at: "2026-11-21T18:10:00Z")
        #expect(later.decision.verdict == .accepted)
        #expect(try await league.badges("Ann") == ["first-roll"])
        let before = try await league.points("Ann")
        let approved = try await league.store.review(
            poor.id, .approved, reason: "ok", moderator: "mo", at: Date())
        let after = try await league.points("Ann")
        let profile = try await league.profile("Ann")
        #expect(profile.badges.first { $0.id == "first-roll" }?.checkInID == poor.id)  // the badge moved
        #expect(after > before)
        #expect(approved.pointsChange == after - before)
        let revoked = try await league.store.review(
            poor.id, .revoked, reason: "blurred", moderator: "mo", at: Date())
        #expect(revoked.pointsChange == before - after)
        #expect(try await league.points("Ann") == before)
    }
}
