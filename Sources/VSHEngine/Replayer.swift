public import Foundation
public import VSHCore
import VSHGeodesy
import VSHXML
public import VSHStore

/// One line of a replay's timeline.
public struct ReplayEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case enter, checkIn = "check-in", exit, huntComplete = "hunt-complete", badge
    }

    public var time: Date
    public var kind: Kind
    public var huntID: String
    public var stopID: String?
    public var points: Int
    /// For check-ins: accepted, rejected or pending.
    public var verdict: String?
    /// For badge events: the badge earned.
    public var badgeID: String? = nil
}

/// What a replay did besides its events.
public struct ReplaySummary: Sendable {
    public var fixes = 0
    /// Fixes not used: no time, out of time order, or too inaccurate for the hunt.
    public var ignored = 0
    public var warnings: [String] = []
    /// Every fix used, for maps (kept only when asked).
    public var track: [Coordinate] = []
}

/// Replays a recorded walk through the engine: the fixes, in time order, go
/// through a fence tracker, and a stay at a stop becomes a check-in through
/// the same `Verifier` rules as a device check-in (recorded with source `replay`).
///
/// The tracker:
/// - **enter** when a fix is covered by a stop (boundary included), or when the
///   straight segment between two consecutive fixes crosses a stop, so that a
///   fast pass between samples is not missed (the enter time is interpolated);
/// - **check-in** at the first covered fix at least `dwellSeconds` after entering
///   (once per visit); the check-in is submitted as happening at that fix's time;
/// - **exit** only when the walker is clearly outside (distance to the stop
///   minus the fix's accuracy beyond `exitBufferMeters`) on two consecutive
///   fixes, so GPS jitter on a boundary does not produce enter/exit storms;
/// - **hunt-complete** and **badge** after the check-in that earned them (from scoring).
///
/// A fix's accuracy is its `hAcc` extension, else `hdop` x 5 m (a typical
/// receiver's error per unit of dilution), else unknown; fixes less accurate
/// than the hunt's `max_accuracy_m` are ignored.
public struct Replayer {
    public var store: GeofenceStore
    public var player: String
    public var huntID: String?
    public var dwellSeconds: Double = 10
    public var exitBufferMeters: Double = 10
    /// Metres of accuracy per unit of horizontal dilution of precision.
    public static let metersPerHDOP = 5.0
    public var verifier = Verifier()
    public var keepTrack = false

    public init(store: GeofenceStore, player: String, huntID: String?) {
        self.store = store
        self.player = player
        self.huntID = huntID
    }

    struct Visit {
        var enteredAt: Date
        var checkedIn = false
        /// Time of the first of the current run of clearly-outside fixes.
        var outsideSince: Date?
        var outsideCount = 0
    }

    /// Replays `path`, calling `emit` for each event in time order.
    /// - Throws: `GPXError` for an unreadable or malformed file, `InputError`
    ///   for an unknown player or hunt, or a walk without any timed point.
    public func run(path: String, emit: (ReplayEvent) -> Void) throws -> ReplaySummary {
        guard try store.player(named: player) != nil else {
            throw InputError("no player \"\(player)\" (add one with: vsh player add NAME)")
        }
        let hunts = try store.hunts().map(\.hunt).filter { huntID == nil || $0.id == huntID }
        if let huntID, hunts.isEmpty { throw InputError("no hunt \"\(huntID)\"") }
        var stops: [String: Stop] = [:]
        for hunt in hunts { for stop in hunt.stops { stops[stop.id] = stop } }
        let maxAccuracy = hunts.map(\.maxAccuracyMeters).max() ?? 50
        // Covering tests in memory; SpatiaLite answers the undecided and the crossings.
        let index = GeofenceIndex(stops: hunts.flatMap(\.stops))
        var found: [Int] = []

        var summary = ReplaySummary()
        var visits: [String: Visit] = [:]
        var previous: (position: Coordinate, time: Date)?
        var previousOnSegment: (position: Coordinate, time: Date)?
        var timed = 0

        func checkIn(_ stop: Stop, at time: Date, position: Coordinate, accuracy: Double?) throws {
            let submission = Submission(
                player: player, evidence: .device(position: position, time: time, accuracyMeters: accuracy),
                huntID: stop.huntID, receivedAt: time, isReplay: true)
            let recorded = try store.record(submission, photoFile: nil) { verifier.evaluate($0, facts: $1) }
            let decision = recorded.decision
            emit(ReplayEvent(
                time: time, kind: .checkIn, huntID: decision.hunt?.id ?? stop.huntID, stopID: decision.stop?.id ?? stop.id,
                points: decision.points, verdict: decision.verdict.rawValue))
            for award in recorded.awards {
                switch award.kind {
                case .bonus:
                    emit(ReplayEvent(time: time, kind: .huntComplete, huntID: award.huntID, stopID: nil, points: award.points, verdict: nil))
                case .badge:
                    emit(ReplayEvent(time: time, kind: .badge, huntID: award.huntID, stopID: nil, points: award.points, verdict: nil, badgeID: award.badgeID))
                case .stop:
                    break
                }
            }
        }

        try GPXReader.read(path: path) { event in
            // A new track or segment means the receiver lost its fix (GPX 1.1 trksegType):
            // the straight line from the last point is not a path walked, so no crossing is looked for.
            if case .segmentStart = event { previousOnSegment = nil }
            if case .trackStart = event { previousOnSegment = nil }
            guard case .point(let point) = event, point.kind == .track else {
                if case .skipped(let line, let reason) = event { summary.warnings.append("\(path):\(line): point skipped: \(reason)") }
                return
            }
            summary.fixes += 1
            guard let time = point.time else {
                summary.ignored += 1
                return
            }
            timed += 1
            if let previous, time < previous.time {
                summary.ignored += 1
                summary.warnings.append("\(path):\(point.line): point skipped: earlier than the point before it")
                return
            }
            let accuracy = point.horizontalAccuracyMeters ?? point.hdop.map { $0 * Self.metersPerHDOP }
            if let accuracy, accuracy > maxAccuracy {
                summary.ignored += 1
                return
            }
            let position = point.coordinate
            if keepTrack { summary.track.append(position) }

            let covering: [StopReference]
            if index.covering(latitude: position.latitude, longitude: position.longitude, into: &found) {
                covering = found.map { let e = index.entries[$0]; return StopReference(huntID: e.huntID, stopID: e.stopID, name: e.name) }
            } else {
                covering = try store.stops(covering: position, inHunt: huntID).filter { stops[$0.stopID] != nil }
            }
            let inside = Set(covering.map(\.stopID))

            // A fast pass between the previous fix of this segment and this one.
            if let previous = previousOnSegment,
                index.mayCross(previous.position.latitude, previous.position.longitude, position.latitude, position.longitude)
            {
                for crossed in try store.stops(crossedBy: previous.position, position, inHunt: huntID)
                where visits[crossed.stop.stopID] == nil && !inside.contains(crossed.stop.stopID) && stops[crossed.stop.stopID] != nil {
                    let at = previous.time.addingTimeInterval(time.timeIntervalSince(previous.time) * crossed.fraction)
                    visits[crossed.stop.stopID] = Visit(enteredAt: at)
                    emit(ReplayEvent(time: at, kind: .enter, huntID: crossed.stop.huntID, stopID: crossed.stop.stopID, points: 0, verdict: nil))
                }
            }
            for ref in covering {
                guard let stop = stops[ref.stopID] else { continue }
                if visits[stop.id] == nil {
                    visits[stop.id] = Visit(enteredAt: time)
                    emit(ReplayEvent(time: time, kind: .enter, huntID: stop.huntID, stopID: stop.id, points: 0, verdict: nil))
                }
                visits[stop.id]!.outsideCount = 0
                visits[stop.id]!.outsideSince = nil
                if !visits[stop.id]!.checkedIn && time.timeIntervalSince(visits[stop.id]!.enteredAt) >= dwellSeconds {
                    visits[stop.id]!.checkedIn = true
                    try checkIn(stop, at: time, position: position, accuracy: accuracy)
                }
            }
            for (stopID, visit) in visits.sorted(by: { $0.key < $1.key }) where !inside.contains(stopID) {
                guard let stop = stops[stopID] else { continue }
                let distance = Geodesic.distanceMeters(from: position, toBoundaryOf: stop.geofence)
                if distance - (accuracy ?? 0) > exitBufferMeters {
                    var updated = visit
                    updated.outsideCount += 1
                    if updated.outsideSince == nil { updated.outsideSince = time }
                    if updated.outsideCount >= 2 {
                        visits[stopID] = nil
                        emit(ReplayEvent(time: updated.outsideSince!, kind: .exit, huntID: stop.huntID, stopID: stopID, points: 0, verdict: nil))
                    } else {
                        visits[stopID] = updated
                    }
                } else {
                    visits[stopID]?.outsideCount = 0
                    visits[stopID]?.outsideSince = nil
                }
            }
            previous = (position, time)
            previousOnSegment = (position, time)
        }
        if summary.fixes > 0 && timed == 0 {
            throw InputError("\(path): the walk's points have no <time>; a replay needs times")
        }
        return summary
    }
}

extension ReplayEvent {
    /// `{time, event, hunt, stop, points, verdict}` (and `badge` for badge events): one line of `vsh replay --json`.
    public var json: JSONValue {
        var object: JSONObject = [
            "time": .string(RFC3339.format(time)), "event": .string(kind.rawValue), "hunt": .string(huntID),
            "stop": .optional(stopID), "points": .int(points), "verdict": .optional(verdict),
        ]
        if kind == .badge { object["badge"] = .optional(badgeID) }
        return .object(object)
    }
}
