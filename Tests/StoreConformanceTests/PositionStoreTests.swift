import Foundation
import Testing
import VSHCore
import VSHHost
import VSHTestSupport

/// Players' last positions on every backend: one a player a hunt (the next replaces it), newest
/// first since a time, without banned or erased players, and forgotten a hunt at a time; the same
/// answers on the memory store, SpatiaLite and PostGIS.
@Suite struct PositionStoreTests {
    typealias Backend = AccountStoreTests.Backend

    /// The scenario's answers on one backend, as text.
    static func play(_ backend: Backend) async throws -> [String] {
        let store = try await AccountStoreTests().store(backend)
        try await store.sync(
            try HuntSources.read(directory: Scenario.huntsFolder),
            badges: try HuntSources.readBadges(directory: Scenario.huntsFolder))
        let t0 = RFC3339.parse("2026-11-21T18:00:00Z")!
        var ids: [String: PlayerID] = [:]
        for name in ["Ann", "Bo", "Cy", "Dee"] {
            ids[name] = try await store.addPlayer(name: name, email: nil, at: t0).id
        }
        for (name, hunt, lat, lon, accuracy, seconds) in [
            ("Ann", "downtown-fremont", 36.1701, -115.1441, 8.0, 0.0),
            ("Bo", "downtown-fremont", 36.1690, -115.1400, 12.5, 60),
            ("Bo", "downtown-fremont", 36.1712, -115.1452, 30, 120),
            ("Cy", "downtown-fremont", 36.1695, -115.1420, 5, 30),
            ("Dee", "downtown-fremont", 36.1600, -115.1500, 5, -3_600),
            ("Ann", "strip-classics", 36.0822, -115.1728, 9, 10),
        ] {
            try await store.recordPosition(
                PlayerPosition(
                    playerID: ids[name]!, huntID: hunt, lat: lat, lon: lon, accuracyMeters: accuracy,
                    at: t0.addingTimeInterval(seconds)))
        }
        func positions(_ hunt: String) async throws -> String {
            try await store.positions(huntID: hunt, since: t0).map {
                "\($0.player) \($0.lat) \($0.lon) ±\($0.accuracyMeters) \(RFC3339.format($0.at))"
            }.joined(separator: "; ")
        }
        var answers = [try await positions("downtown-fremont"), try await positions("strip-classics")]
        try await store.setBanned(true, player: ids["Cy"]!)
        _ = try await store.erase(player: ids["Ann"]!)
        answers += [try await positions("downtown-fremont"), try await positions("strip-classics")]
        answers.append("forgot \(try await store.forgetPositions(huntID: "downtown-fremont"))")
        answers.append("forgot again \(try await store.forgetPositions(huntID: "downtown-fremont"))")
        answers.append(
            "left: \(try await store.positions(huntID: "downtown-fremont", since: .distantPast).count)")
        return answers
    }

    @Test func theSamePositionsOnEveryBackend() async throws {
        let oracle = try await Self.play(.memory)
        // Bo once, where he was last, first; Dee's is older than the time asked; Ann's other hunt apart.
        #expect(
            oracle.first
                == "Bo 36.1712 -115.1452 ±30.0 2026-11-21T18:02:00Z; Cy 36.1695 -115.142 ±5.0 2026-11-21T18:00:30Z; "
                + "Ann 36.1701 -115.1441 ±8.0 2026-11-21T18:00:00Z", "\(oracle)")
        #expect(oracle[1] == "Ann 36.0822 -115.1728 ±9.0 2026-11-21T18:00:10Z", "\(oracle)")
        // Cy banned, Ann erased: Bo alone, and nothing of Ann's anywhere.
        #expect(
            oracle[2] == "Bo 36.1712 -115.1452 ±30.0 2026-11-21T18:02:00Z" && oracle[3] == "", "\(oracle)")
        // Forgetting deletes the rows still kept (Bo's, Cy's and Dee's; Ann's went with her account).
        #expect(Array(oracle.suffix(3)) == ["forgot 3", "forgot again 0", "left: 0"], "\(oracle)")
        for backend in [Backend.spatiaLite, .postGIS] {
            #expect(try await Self.play(backend) == oracle, "\(backend)")
        }
    }
}
