import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHHost
import VSHPostGIS
import VSHSpatiaLite
import VSHTestSupport

/// Teams on every backend: the same scenario gives the same team board on the memory store,
/// SpatiaLite and PostGIS; a team is full at `max_team_size`; a player on no team checks in at a
/// teams hunt for nothing; a member who leaves keeps what they earned the team.
@Suite struct TeamStoreTests {
    typealias Backend = AccountStoreTests.Backend

    /// The scenario's answers on one backend, as text.
    static func play(_ backend: Backend) async throws -> [String] {
        let store = try await AccountStoreTests().store(backend)
        let sources = try HuntSources.read(directory: Scenario.huntsFolder).map {
            source -> HuntCatalog.Source in
            guard source.expectedID == "downtown-fremont" else { return source }
            var teams = source
            let text = String(decoding: source.bytes, as: UTF8.self)
            teams.bytes = Array(
                text.replacingOccurrences(
                    of: #""hunt": {"#, with: #""hunt": {"play": "teams", "max_team_size": 2, "#
                ).utf8)
            return teams
        }
        try await store.sync(sources, badges: try HuntSources.readBadges(directory: Scenario.huntsFolder))
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.play == .teams)
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.maxTeamSize == 2)
        let t0 = RFC3339.parse("2026-11-21T18:00:00Z")!
        var ids: [String: PlayerID] = [:]
        for name in ["Ann", "Bo", "Cy", "Dee", "Eve"] {
            ids[name] = try await store.addPlayer(name: name, email: nil, at: t0).id
        }
        var answers: [String] = []
        let aces = try await store.createTeam(
            huntID: "downtown-fremont", name: "Aces", joinCode: "ACES2345", founder: ids["Ann"], at: t0)
        answers.append(
            "Bo joins: \(try await store.joinTeam(aces.id, player: ids["Bo"]!, maxSize: 2, at: t0))")
        answers.append(
            "Bo again: \(try await store.joinTeam(aces.id, player: ids["Bo"]!, maxSize: 2, at: t0))")
        answers.append(
            "Cy joins: \(try await store.joinTeam(aces.id, player: ids["Cy"]!, maxSize: 2, at: t0))")
        await #expect(throws: LeagueError.teamNameTaken(name: "ACES")) {
            try await store.createTeam(
                huntID: "downtown-fremont", name: "ACES", joinCode: "ACES6789", founder: nil, at: t0)
        }
        let cats = try await store.createTeam(
            huntID: "downtown-fremont", name: "Cats", joinCode: "CATS2345", founder: nil, at: t0)
        for name in ["Cy", "Eve"] {
            answers.append(
                "\(name) joins Cats: \(try await store.joinTeam(cats.id, player: ids[name]!, maxSize: 2, at: t0))"
            )
        }
        #expect(try await store.team(joinCode: "CATS2345") == cats)
        #expect(try await store.team(of: ids["Eve"]!, huntID: "downtown-fremont") == cats)
        #expect(try await store.teams(huntID: "downtown-fremont").map(\.name) == ["Aces", "Cats"])

        let photos = FilePhotoStore(root: try TestSupport.temporaryDirectory("vsh-team-photos").path)
        let service = CheckInService(store: store, photos: photos)
        var recordedIDs: [String: Int64] = [:]
        for (name, stop, minute) in [
            ("Ann", "fremont-street-experience", 0), ("Bo", "fremont-street-experience", 1),
            ("Bo", "mob-museum", 8), ("Cy", "fremont-street-experience", 2),
            ("Dee", "fremont-street-experience", 3),
            ("Eve", "mob-museum", 9),
        ] {
            let time = t0.addingTimeInterval(Double(minute) * 60)
            let recorded = try await service.checkIn(
                player: ids[name]!, position: Scenario.landmarks[stop]!, time: time, accuracyMeters: 5,
                huntID: nil,
                now: time.addingTimeInterval(30))
            recordedIDs["\(name) \(stop)"] = recorded.id
            answers.append(
                "\(name) at \(stop): \(recorded.decision.verdict) \(recorded.decision.hunt?.id ?? "-")")
        }
        func board() async throws -> [String] {
            let hunt = try #require(try await store.hunt(id: "downtown-fremont")?.hunt)
            let teams = try await store.teams(huntID: hunt.id)
            // The hunt's members in one read are each team's members, in the order they joined.
            let members = try await store.members(huntID: hunt.id)
            #expect(!members.isEmpty && Set(members.keys).isSubset(of: Set(teams.map(\.id))))
            for team in teams {
                #expect((members[team.id] ?? []) == (try await store.members(team: team.id)))
            }
            #expect(try await store.members(huntID: "strip-classics").isEmpty)
            // The board the service shows reads the running totals: it must be the board scored
            // from the check-ins, adjustments and all, whole and its top, with each row's rank.
            let scored = TeamBoard.standings(
                hunt: hunt, teams: teams, members: members,
                checkIns: try await store.teamCheckIns(huntID: hunt.id),
                badges: try await store.badgeDefinitions(),
                adjustments: try await store.adjustments(huntID: hunt.id))
            let stored = try await store.teamBoard(huntID: hunt.id, limit: nil)
            #expect(stored == scored, "\(stored) against \(scored)")
            #expect(stored.count == teams.count && stored.allSatisfy(\.visits.isEmpty))
            #expect(try await store.teamBoard(huntID: hunt.id, limit: 1) == Array(scored.prefix(1)))
            for row in scored {
                #expect(
                    try await store.teamRank(huntID: hunt.id, points: row.points) == row.rank,
                    "\(row.team.name)")
                // One team's own check-ins score it as the whole hunt's do.
                let own = TeamBoard.standings(
                    hunt: hunt, teams: [row.team], members: members,
                    checkIns: try await store.teamCheckIns(huntID: hunt.id, team: row.team.id),
                    badges: try await store.badgeDefinitions(),
                    adjustments: try await store.adjustments(huntID: hunt.id))
                #expect(own.first?.points == row.points && own.first?.visits.count == row.visits.count)
            }
            answers.append(
                "stored: "
                    + stored.map {
                        "#\($0.rank) \($0.team.name) \($0.points) (\($0.adjustments)) \($0.stopsVisited) \($0.completed)"
                    }
                    .joined(separator: ", "))
            return TeamBoard.standings(
                hunt: hunt, teams: teams, members: members,
                checkIns: try await store.teamCheckIns(huntID: hunt.id),
                badges: try await store.badgeDefinitions()
            ).map { row in
                "#\(row.rank) \(row.team.name) \(row.points) pts \(row.stopsVisited) stops \(row.members) "
                    + "\(row.badges) \(row.visits.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.player)" })"
            }
        }
        // Adjustments: a team's in its hunt; a player's in a hunt or on the all-time board only.
        _ = try await store.adjust(
            .team(cats.id), huntID: "downtown-fremont", points: -5, reason: "late", by: "Mo", at: t0)
        _ = try await store.adjust(
            .player(ids["Dee"]!), huntID: nil, points: 7, reason: "helped", by: "Mo", at: t0)
        _ = try await store.adjust(
            .player(ids["Eve"]!), huntID: "downtown-fremont", points: 3, reason: "photo", by: "Mo", at: t0)
        for query in [LeaderboardQuery(), LeaderboardQuery(huntID: "downtown-fremont")] {
            answers.append(
                try await store.leaderboard(query).map { "\($0.rank) \($0.player) \($0.points)" }.joined(
                    separator: ", "))
        }
        answers.append(
            "\(try await store.adjustments(of: .player(ids["Eve"]!)).map { "\($0.points) \($0.reason) \($0.by)" })"
        )
        answers.append("\(try await store.adjustments(huntID: "downtown-fremont").count) in the hunt")
        let before = try await board()
        answers += before
        answers.append("Bo leaves: \(try await store.leaveTeam(aces.id, player: ids["Bo"]!))")
        answers.append("Bo leaves again: \(try await store.leaveTeam(aces.id, player: ids["Bo"]!))")
        let after = try await board()
        #expect(after.count == 2 && after.first?.contains("[\"Ann\"]") == true, "\(after)")
        #expect(before.first?.contains("2 stops") == true, "\(before)")
        answers += after
        // The running totals follow a revocation, a ban and its end, and a rescore of everyone.
        let museum = try #require(recordedIDs["Bo mob-museum"])
        _ = try await store.review(
            museum, .revoked, reason: "not the museum", moderator: "Mo", at: t0.addingTimeInterval(3600))
        let revoked = try await board()
        #expect(revoked.contains { $0.hasPrefix("#2 Aces 90 pts 1 stops") }, "\(revoked)")
        answers += revoked
        try await store.setBanned(true, player: ids["Eve"]!)
        let banned = try await board()
        #expect(banned.contains { $0.hasPrefix("#1 Cats 90 pts 1 stops") }, "\(banned)")
        answers += banned
        try await store.setBanned(false, player: ids["Eve"]!)
        try await store.rescoreEveryone()
        answers += try await board()
        return answers
    }

    /// Two PostGIS instances record the check-ins of two teams' members at once, each member at
    /// another stop: every team's running total holds every member's stop and the bonus (a team's
    /// rescore waits for the team's lock, so none misses another's), and equals the board scored
    /// from the check-ins.
    @Test func teamMembersCheckingInAtOnceOnTwoInstances() async throws {
        let url = try PostgresCluster.shared().database()
        let instances = [
            try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait),
            try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait),
        ]
        let sources = try HuntSources.read(directory: Scenario.huntsFolder).map {
            source -> HuntCatalog.Source in
            guard source.expectedID == "downtown-fremont" else { return source }
            var teams = source
            teams.bytes = Array(
                String(decoding: source.bytes, as: UTF8.self).replacingOccurrences(
                    of: #""hunt": {"#, with: #""hunt": {"play": "teams", "#
                ).utf8)
            return teams
        }
        let store = instances[0]
        try await store.sync(sources, badges: try HuntSources.readBadges(directory: Scenario.huntsFolder))
        let stops = [
            "fremont-street-experience", "mob-museum", "neon-museum", "mormon-fort", "container-park",
            "smith-center", "arts-district",
        ]
        let t0 = RFC3339.parse("2026-11-21T18:00:00Z")!
        var visits: [(player: PlayerID, stop: String)] = []
        for team in ["Aces", "Bees"] {
            let made = try await store.createTeam(
                huntID: "downtown-fremont", name: team, joinCode: "\(team.uppercased())2345", founder: nil,
                at: t0)
            for stop in stops {
                let player = try await store.addPlayer(name: "\(team) \(stop)", email: nil, at: t0).id
                #expect(try await store.joinTeam(made.id, player: player, maxSize: nil, at: t0) == .joined)
                visits.append((player, stop))
            }
        }
        let photos = FilePhotoStore(root: try TestSupport.temporaryDirectory("vsh-team-race").path)
        let verdicts = try await withThrowingTaskGroup(of: Verdict.self) { group in
            for (index, visit) in visits.enumerated() {
                let service = CheckInService(store: instances[index % 2], photos: photos)
                group.addTask {
                    try await service.checkIn(
                        player: visit.player, position: Scenario.landmarks[visit.stop]!, time: t0,
                        accuracyMeters: 5, huntID: nil, now: t0.addingTimeInterval(30)
                    ).decision.verdict
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts.count == 14 && verdicts.allSatisfy { $0 == .accepted }, "\(verdicts)")
        let hunt = try #require(try await store.hunt(id: "downtown-fremont")?.hunt)
        let scored = TeamBoard.standings(
            hunt: hunt, teams: try await store.teams(huntID: hunt.id),
            members: try await store.members(huntID: hunt.id),
            checkIns: try await store.teamCheckIns(huntID: hunt.id),
            badges: try await store.badgeDefinitions())
        for instance in instances {
            let stored = try await instance.teamBoard(huntID: hunt.id, limit: nil)
            #expect(stored == scored, "\(stored) against \(scored)")
            #expect(
                stored.count == 2 && stored.allSatisfy { $0.stopsVisited == 7 && $0.completed }, "\(stored)")
        }
    }

    @Test func theSameTeamBoardOnEveryBackend() async throws {
        let oracle = try await Self.play(.memory)
        // The scenario's facts, on the oracle: Ann and Bo's fremont once, Bo's museum; Cy's
        // check-in counts for the Cats; Dee on no team checks in for nothing.
        #expect(oracle.contains("Cy joins: full") && oracle.contains("Bo again: already"), "\(oracle)")
        #expect(!oracle.contains("Dee at fremont-street-experience: accepted"), "\(oracle)")
        #expect(oracle.contains("Bo at mob-museum: accepted downtown-fremont"), "\(oracle)")
        #expect(
            oracle.contains { $0.hasPrefix("#1 Aces") && $0.contains("2 stops [\"Ann\", \"Bo\"]") },
            "\(oracle)")
        #expect(
            oracle.contains { $0.contains("fremont-street-experience=Ann") && $0.contains("mob-museum=Bo") })
        #expect(oracle.contains { $0.contains("Cats") && $0.contains("fremont-street-experience=Cy") })
        #expect(oracle.contains("Bo leaves: true") && oracle.contains("Bo leaves again: false"))
        #expect(oracle.contains("2 in the hunt") && oracle.contains("[\"3 photo Mo\"]"), "\(oracle)")
        // Dee's adjustment names no hunt: on the all-time board, not on the hunt's.
        #expect(oracle.filter { $0.contains("Dee 7") }.count == 1, "\(oracle)")
        for backend in [Backend.spatiaLite, .postGIS] {
            #expect(try await Self.play(backend) == oracle, "\(backend)")
        }
    }
}
