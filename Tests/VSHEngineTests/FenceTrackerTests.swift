import Foundation
import Testing
import VSHCore
import VSHEngine

/// The fence tracker on hand-made fixes: no store, no GPX.
@Suite struct FenceTrackerTests {
    let stop = Stop(
        id: "a", huntID: "h", name: "A", points: 10,
        geofence: Geofence(
            Polygon(
                shell: try! LinearRing([
                    Coordinate(unchecked: 36.080, -115.173), Coordinate(unchecked: 36.080, -115.172),
                    Coordinate(unchecked: 36.081, -115.172), Coordinate(unchecked: 36.081, -115.173),
                    Coordinate(unchecked: 36.080, -115.173),
                ]))))
    var ref: StopReference { StopReference(huntID: "h", stopID: "a", name: "A") }
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func enterDwellAndExitWithHysteresis() {
        var tracker = FenceTracker(stops: [stop], dwellSeconds: 10, exitBufferMeters: 10)
        let inside = Coordinate(unchecked: 36.0805, -115.1725)
        let farAway = Coordinate(unchecked: 36.0850, -115.1725)
        var events: [FenceTracker.Event] = []
        events += tracker.update(position: inside, time: t0, accuracyMeters: 5, covering: [ref])
        events += tracker.update(position: inside, time: t0 + 5, accuracyMeters: 5, covering: [ref])
        events += tracker.update(position: inside, time: t0 + 10, accuracyMeters: 5, covering: [ref])
        events += tracker.update(position: inside, time: t0 + 20, accuracyMeters: 5, covering: [ref])
        // One clearly-outside fix is not an exit (jitter); the second is, dated at the first.
        events += tracker.update(position: farAway, time: t0 + 30, accuracyMeters: 5, covering: [])
        #expect(tracker.isVisiting("a"))
        events += tracker.update(position: farAway, time: t0 + 40, accuracyMeters: 5, covering: [])
        #expect(!tracker.isVisiting("a"))
        #expect(
            events == [
                .enter(stopID: "a", at: t0),
                .dwell(stopID: "a", at: t0 + 10, position: inside, accuracyMeters: 5),
                .exit(stopID: "a", at: t0 + 30),
            ])
    }

    @Test func aFastPassBetweenFixesIsAnEnterAtTheInterpolatedTime() {
        var tracker = FenceTracker(stops: [stop])
        let west = Coordinate(unchecked: 36.0805, -115.174)
        let east = Coordinate(unchecked: 36.0805, -115.171)
        _ = tracker.update(position: west, time: t0, accuracyMeters: 5, covering: [])
        let events = tracker.update(
            position: east, time: t0 + 20, accuracyMeters: 5, covering: [],
            crossed: [CrossedStop(stop: ref, fraction: 0.5)], previousTime: t0)
        #expect(events.first == .enter(stopID: "a", at: t0 + 10))
        // Stops the tracker does not know are ignored.
        var other = FenceTracker(stops: [])
        #expect(other.update(position: west, time: t0, accuracyMeters: nil, covering: [ref]).isEmpty)
    }

    @Test func ranksAreCompetitionRanks() {
        #expect(Ranking.competition(points: [90, 80, 80, 70, 70, 70, 10]) == [1, 2, 2, 4, 4, 4, 7])
        #expect(Ranking.competition(points: []) == [])
        #expect(Ranking.competition(points: [5]) == [1])
    }

    @Test func boundedParallelKeepsOrderAtAnyWidth() async {
        let items = Array(0..<1_000)
        for width in [1, 2, 7, 64] {
            let squares = await BoundedParallel.map(items, width: width) { $0 * $0 }
            #expect(squares.count == items.count)
            #expect(squares == items.map { $0 * $0 }, "width \(width)")
        }
        #expect(await BoundedParallel.map([Int](), width: 4) { $0 }.isEmpty)
    }
}
