import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHMemoryStore
import VSHSpatiaLite
import VSHTestSupport

/// The rules' view of the past, on the memory store: no database involved.
@Suite struct MemoryStoreTests {
    let plaza = Geofence(
        Polygon(
            shell: try! LinearRing([
                Coordinate(unchecked: 36.080, -115.173), Coordinate(unchecked: 36.080, -115.172),
                Coordinate(unchecked: 36.081, -115.172), Coordinate(unchecked: 36.081, -115.173),
                Coordinate(unchecked: 36.080, -115.173),
            ])))

    /// Stop "a" of hunt "h": 50 points, the plaza.
    var stopA: Stop { Stop(id: "a", huntID: "h", name: "A", points: 50, geofence: plaza) }

    func league() async throws -> (MemoryStore, PlayerID) {
        let store = MemoryStore()
        await store.replace(
            with: HuntCatalog(hunts: [
                Hunt(
                    id: "h", name: "Hunt",
                    stops: [Stop(id: "a", huntID: "h", name: "A", points: 50, geofence: plaza)])
            ]))
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: Date(timeIntervalSince1970: 0))
        return (store, ann.id)
    }

    @Test func factsComeFromThePast() async throws {
        let (store, ann) = try await league()
        let time = RFC3339.parse("2026-11-21T19:00:00Z")!
        let service = CheckInService(store: store, photos: FilePhotoStore.unused)
        let first = try await service.checkIn(
            player: ann, position: Coordinate(unchecked: 36.0805, -115.1725), time: time, accuracyMeters: 5,
            huntID: nil,
            now: time.addingTimeInterval(30))
        #expect(first.decision.verdict == .accepted)
        #expect(first.decision.points == 50)
        let again = try await service.checkIn(
            player: ann, position: Coordinate(unchecked: 36.0806, -115.1726),
            time: time.addingTimeInterval(600),
            accuracyMeters: 5, huntID: nil, now: time.addingTimeInterval(630))
        // Accepted again, but the first visit already scored.
        #expect(again.decision.points == 0)
        #expect(again.decision.rules.first { $0.rule == .firstVisit }?.outcome == .passed)
        #expect(await store.visitedStops(player: ann, hunt: "h") == ["a"])
        #expect(await store.players().first?.points == first.decision.points)
    }

    @Test func unknownNamesAreTypedErrors() async throws {
        let (store, _) = try await league()
        let service = CheckInService(store: store, photos: FilePhotoStore.unused)
        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await service.checkIn(
                player: PlayerID(99), position: Coordinate(unchecked: 36.08, -115.17), time: Date(),
                accuracyMeters: 5,
                huntID: nil, now: Date())
        }
        await #expect(throws: LeagueError.unknownHunt(id: "atlantis", known: ["h"])) {
            try await store.leaderboard(LeaderboardQuery(huntID: "atlantis"))
        }
        await #expect(throws: LeagueError.unknownCheckIn(id: 7)) {
            try await store.review(7, .approved, reason: "ok", moderator: "mo", at: Date())
        }
        await #expect(throws: LeagueError.missingReason) {
            try await store.review(1, .approved, reason: "  ", moderator: "mo", at: Date())
        }
    }

    /// Boundary-inclusive, as `ST_Covers`: an edge, a vertex and the closing vertex are inside.
    @Test func coversIncludesTheBoundary() async throws {
        let (store, _) = try await league()
        for (lat, lon, inside) in [
            (36.0805, -115.1725, true), (36.080, -115.1725, true), (36.081, -115.172, true),
            (36.080, -115.173, true),
            (36.0815, -115.1725, false), (36.0805, -115.1735, false),
        ] {
            let found = await store.stops(covering: Coordinate(unchecked: lat, lon), inHunt: nil)
            #expect(found.isEmpty != inside, "\(lat), \(lon)")
        }
        let crossed = await store.stops(
            crossedBy: Coordinate(unchecked: 36.0805, -115.174), Coordinate(unchecked: 36.0805, -115.171),
            inHunt: nil)
        #expect(crossed.map(\.stop.stopID) == ["a"])
        #expect(abs((crossed.first?.fraction ?? 0) - 0.5) < 1e-9)
    }
}

extension FilePhotoStore {
    /// A store for tests that submit no photo (a folder that is never created).
    static var unused: FilePhotoStore {
        FilePhotoStore(
            root: FileManager.default.temporaryDirectory.appendingPathComponent(
                "vsh-unused-\(UUID().uuidString)"
            ).path)
    }
}
