import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHTestSupport

/// A check-in's state has one definition, `CheckInState`: every store's `checkin_state` (the
/// SQL views, the memory store's Swift) gives the state it says for each verdict and decision,
/// and the boards, profiles, review queue and counts read the same states as counting or waiting.
@Suite struct CheckInStateStoreTests {
    @Test(arguments: AccountStoreTests.Backend.allCases) func everyStoreFollowsTheOneDefinition(
        _ backend: AccountStoreTests.Backend
    ) async throws {
        let store = try await AccountStoreTests().store(backend)
        // Six stops 0.002° apart (about 200 m), one a case, visited ten minutes apart.
        let ids = ["a", "b", "c", "d", "e", "f"]
        try await store.replace(
            with: HuntCatalog(hunts: [
                Hunt(
                    id: "h", name: "Hunt",
                    stops: try ids.enumerated().map { i, id in
                        Stop(
                            id: id, huntID: "h", name: id.uppercased(), points: 10 * (i + 1),
                            geofence: try square(36.08, -115.17 + 0.002 * Double(i), halfDegrees: 0.0005))
                    })
            ]))
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: Date(timeIntervalSince1970: 0)).id
        let start = try #require(RFC3339.parse("2026-11-21T18:00:00Z"))
        let service = CheckInService(store: store, photos: OverturnStoreTests.noPhotos)
        // Each stop's fix: its accuracy (150 m asks a moderator), its age, then the decision over it.
        let cases: [(accuracy: Double, ageSeconds: Double, decision: ReviewDecision?, verdict: Verdict)] = [
            (5, 0, nil, .accepted), (150, 0, nil, .pending), (150, 0, .approved, .pending),
            (150, 0, .rejected, .pending), (5, 0, .revoked, .accepted), (5, 2 * 86_400, nil, .rejected),
        ]
        var expected: [Int64: CheckInState] = [:]
        var stopOf: [Int64: String] = [:]
        for (i, c) in cases.enumerated() {
            let now = start.addingTimeInterval(600 * Double(i))
            let recorded = try await service.checkIn(
                player: ann, position: Coordinate(unchecked: 36.08, -115.17 + 0.002 * Double(i)),
                time: now.addingTimeInterval(-c.ageSeconds), accuracyMeters: c.accuracy, huntID: "h", now: now
            )
            try #require(recorded.decision.verdict == c.verdict, "stop \(ids[i]): \(recorded.decision.rules)")
            #expect(recorded.state == CheckInState(c.verdict))
            if let decision = c.decision {
                let outcome = try await store.review(
                    recorded.id, decision, reason: "case \(i)", moderator: "mo",
                    at: now.addingTimeInterval(60))
                #expect(outcome.state == CheckInState(verdict: c.verdict, latestDecision: decision))
            }
            stopOf[recorded.id] = ids[i]
            expected[recorded.id] = CheckInState(verdict: c.verdict, latestDecision: c.decision)
        }
        #expect(Set(expected.values) == Set(CheckInState.allCases))
        for (id, state) in expected {
            #expect(try await store.reviewSubject(id)?.state == state, "check-in \(id)")
        }
        let counting = expected.filter { $0.value.counts }
        let profile = try await store.profile(player: ann, recent: 10, acceptedOnly: true)
        #expect(Set(profile.recent.map(\.id)) == Set(counting.keys))
        let everything = try await store.profile(player: ann, recent: 10, acceptedOnly: false)
        #expect(Dictionary(uniqueKeysWithValues: everything.recent.map { ($0.id, $0.state) }) == expected)
        #expect(
            Set(try await store.pendingCheckIns().map(\.id))
                == Set(expected.filter { $0.value == .pending }.keys))
        #expect(try await store.players().first?.acceptedCheckIns == counting.count)
        #expect(
            Set(try await store.visitedStops(player: ann, hunt: "h"))
                == Set(counting.keys.map { stopOf[$0]! }))
        #expect(try await store.players().first?.points == (1 + 3) * 10)
    }
}

/// The definition itself: which states count, stand in a player's history, and hold a photo.
@Suite struct CheckInStateTests {
    @Test func theStatesAndWhatEachMeans() {
        #expect(CheckInState.all(\.counts) == [.accepted])
        #expect(CheckInState.all(\.isLive) == [.accepted, .pending])
        #expect(CheckInState.all(\.holdsItsPhoto) == [.accepted, .pending, .revoked])
        #expect(CheckInState(verdict: .rejected, latestDecision: nil) == .rejected)
        #expect(CheckInState(verdict: .pending, latestDecision: .approved) == .accepted)
        #expect(CheckInState(verdict: .accepted, latestDecision: .revoked) == .revoked)
        #expect(CheckInState(verdict: .pending, latestDecision: .rejected) == .rejected)
        #expect(CheckInState.verdictsThatCanCount.allSatisfy { CheckInState($0).isLive })
        #expect(!CheckInState(.rejected).isLive)
    }
}
