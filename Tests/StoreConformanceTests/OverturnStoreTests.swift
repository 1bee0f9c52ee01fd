import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHMemoryStore
import VSHSpatiaLite
import VSHTestSupport

/// Overturning a rejection, the same test on each store: a new check-in holds the evidence, the
/// rejected one stays as it was, and a rejection is overturned once.
@Suite struct OverturnStoreTests {
    @Test(arguments: AccountStoreTests.Backend.allCases) func aRejectionIsOverturnedOnce(
        _ backend: AccountStoreTests.Backend
    ) async throws {
        let store = try await AccountStoreTests().store(backend)
        try await store.replace(
            with: HuntCatalog(hunts: [
                Hunt(
                    id: "h", name: "Hunt",
                    stops: [
                        Stop(
                            id: "a", huntID: "h", name: "A", points: 50,
                            geofence: try square(36.0805, -115.1725, halfDegrees: 0.0005))
                    ])
            ]))
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: Date(timeIntervalSince1970: 0)).id
        let now = try #require(RFC3339.parse("2026-11-21T19:00:00Z"))
        let service = CheckInService(store: store, photos: Self.noPhotos)
        // A fix two days old: photo_age fails, rejected.
        let stale = try await service.checkIn(
            player: ann, position: Coordinate(unchecked: 36.0805, -115.1725),
            time: now.addingTimeInterval(-2 * 86_400), accuracyMeters: 5, huntID: nil, now: now)
        #expect(stale.decision.verdict == .rejected)
        let reviews = ReviewService(store: store, photos: Self.noPhotos)
        await #expect(throws: LeagueError.overturnNeedsReason(id: stale.id)) {
            try await reviews.approve(stale.id, reason: nil, moderator: "mo", at: now)
        }
        let outcome = try await reviews.approve(
            stale.id, reason: "the phone's clock was wrong", moderator: "mo", at: now)
        let copy = try #require(outcome.recordedAs)
        #expect(copy > stale.id)
        #expect(outcome.checkInID == stale.id)
        #expect(outcome.state == .accepted)
        #expect(outcome.pointsChange == 50)
        #expect(try await store.reviewSubject(stale.id)?.state == .rejected)
        #expect(try await store.reviewSubject(copy)?.state == .accepted)
        #expect(try await store.reviewSubject(copy)?.failedRules == [.photoAge])
        #expect(try await store.visitedStops(player: ann, hunt: "h") == ["a"])
        await #expect(throws: LeagueError.overturned(id: stale.id, by: copy)) {
            try await reviews.approve(stale.id, reason: "again", moderator: "mo", at: now)
        }
        // Only a rejected check-in is overturned.
        await #expect(throws: LeagueError.checkInState(id: copy, state: .accepted, required: .rejected)) {
            try await store.overturn(
                copy,
                as: Submission(
                    player: ann,
                    evidence: .device(
                        position: Coordinate(unchecked: 36.0805, -115.1725), time: now, accuracyMeters: 5),
                    huntID: nil, receivedAt: now),
                photoFile: nil, decide: { Verifier().evaluate($0, facts: $1) }, reason: "x", moderator: "mo",
                at: now)
        }
        #expect(try await store.players().first?.points == 50)
    }

    /// A photo store for check-ins without photos (a folder that is never created).
    static var noPhotos: FilePhotoStore {
        FilePhotoStore(
            root: FileManager.default.temporaryDirectory.appendingPathComponent(
                "vsh-unused-\(UUID().uuidString)"
            ).path)
    }
}
