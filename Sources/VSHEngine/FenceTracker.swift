public import Foundation
public import VSHCore
import VSHGeodesy

/// Turns a stream of fixes into visits: enter, dwell (the moment a stay becomes a
/// check-in) and exit, per stop. Pure and synchronous: the caller answers which stops
/// cover each fix and which a segment crossed (from a `HuntStore` or an in-memory
/// `GeofenceIndex`), and acts on the events (a replay checks in at `dwell`).
///
/// - **enter** when a fix is covered by a stop (boundary included), or when the
///   straight segment from the previous fix of the same track segment crosses a
///   stop, so that a fast pass between samples is not missed (the enter time is
///   interpolated along the segment);
/// - **dwell** at the first covered fix at least `dwellSeconds` after entering (once per visit);
/// - **exit** only when the walker is clearly outside (geodesic distance to the stop's
///   boundary minus the fix's accuracy beyond `exitBufferMeters`) on two consecutive
///   fixes, so that GPS jitter on a boundary does not produce enter/exit storms; the
///   exit is dated at the first of those two fixes.
public struct FenceTracker: Sendable {
    /// What happened at a stop.
    public enum Event: Sendable, Equatable {
        case enter(stopID: String, at: Date)
        /// The walker has stayed `dwellSeconds`: the fix that completed the stay.
        case dwell(stopID: String, at: Date, position: Coordinate, accuracyMeters: Double?)
        case exit(stopID: String, at: Date)
    }

    /// Seconds inside a stop before a stay counts.
    public var dwellSeconds: Double
    /// Metres beyond a stop's boundary (after the fix's accuracy) that count as clearly outside.
    public var exitBufferMeters: Double
    /// The stops tracked, by id; others named by a lookup are ignored.
    public let stops: [String: Stop]
    private var visits: [String: Visit] = [:]

    struct Visit: Sendable {
        var enteredAt: Date
        var dwelt = false
        /// Time of the first of the current run of clearly-outside fixes.
        var outsideSince: Date?
        var outsideCount = 0
    }

    /// A tracker of `stops`: a stay of `dwellSeconds` inside one is a dwell, and a player leaves
    /// it only when more than `exitBufferMeters` outside.
    public init(stops: [Stop], dwellSeconds: Double = 10, exitBufferMeters: Double = 10) {
        var byID: [String: Stop] = [:]
        for stop in stops { byID[stop.id] = stop }
        self.stops = byID
        self.dwellSeconds = dwellSeconds
        self.exitBufferMeters = exitBufferMeters
    }

    /// Whether the walker is inside this stop now (entered and not yet exited).
    public func isVisiting(_ stopID: String) -> Bool { visits[stopID] != nil }

    /// Takes one fix.
    /// - Parameters:
    ///   - position: where the fix is.
    ///   - time: when, never earlier than the fix before it.
    ///   - accuracyMeters: the fix's accuracy radius, if known.
    ///   - covering: the stops covering `position`, in catalog order.
    ///   - crossed: the stops the segment from the previous fix of the same track segment
    ///     crosses, with the fraction along it; empty for the first fix of a segment.
    ///   - previousTime: the time of that previous fix (for interpolating crossings).
    /// - Returns: the events this fix causes, in order: crossings entered, then per covering
    ///   stop its enter and dwell, then exits (by stop id).
    public mutating func update(
        position: Coordinate, time: Date, accuracyMeters: Double?, covering: [StopReference],
        crossed: [CrossedStop] = [], previousTime: Date? = nil
    ) -> [Event] {
        var events: [Event] = []
        let inside = Set(covering.map(\.stopID))
        if let previousTime {
            for crossing in crossed
            where visits[crossing.stop.stopID] == nil && !inside.contains(crossing.stop.stopID)
                && stops[crossing.stop.stopID] != nil
            {
                let at = previousTime.addingTimeInterval(
                    time.timeIntervalSince(previousTime) * crossing.fraction)
                visits[crossing.stop.stopID] = Visit(enteredAt: at)
                events.append(.enter(stopID: crossing.stop.stopID, at: at))
            }
        }
        for ref in covering {
            guard let stop = stops[ref.stopID] else { continue }
            if visits[stop.id] == nil {
                visits[stop.id] = Visit(enteredAt: time)
                events.append(.enter(stopID: stop.id, at: time))
            }
            visits[stop.id]!.outsideCount = 0
            visits[stop.id]!.outsideSince = nil
            if !visits[stop.id]!.dwelt && time.timeIntervalSince(visits[stop.id]!.enteredAt) >= dwellSeconds {
                visits[stop.id]!.dwelt = true
                events.append(
                    .dwell(stopID: stop.id, at: time, position: position, accuracyMeters: accuracyMeters))
            }
        }
        for (stopID, visit) in visits.sorted(by: { $0.key < $1.key }) where !inside.contains(stopID) {
            guard let stop = stops[stopID] else { continue }
            let distance = Geodesic.distanceMeters(from: position, toBoundaryOf: stop.geofence)
            if distance - (accuracyMeters ?? 0) > exitBufferMeters {
                var updated = visit
                updated.outsideCount += 1
                if updated.outsideSince == nil { updated.outsideSince = time }
                if updated.outsideCount >= 2 {
                    visits[stopID] = nil
                    events.append(.exit(stopID: stopID, at: updated.outsideSince!))
                } else {
                    visits[stopID] = updated
                }
            } else {
                visits[stopID]?.outsideCount = 0
                visits[stopID]?.outsideSince = nil
            }
        }
        return events
    }
}
