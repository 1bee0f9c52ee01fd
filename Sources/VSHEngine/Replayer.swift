public import Foundation
public import VSHCore
import VSHGeodesy
import VSHXML

/// One line of a replay's timeline.
public struct ReplayEvent: Sendable, Equatable {
    /// What happened: a stop entered, a check-in, a stop left, a hunt completed, a badge earned.
    public enum Kind: String, Sendable {
        case enter
        case checkIn = "check-in"
        case exit
        case huntComplete = "hunt-complete"
        case badge
    }

    /// When it happened (the fix's time).
    public var time: Date
    /// What happened.
    public var kind: Kind
    /// The hunt.
    public var huntID: String
    /// The stop, for stop and check-in events.
    public var stopID: String?
    /// Points it earned.
    public var points: Int
    /// For check-ins: accepted, rejected or pending.
    public var verdict: String?
    /// For badge events: the badge earned.
    public var badgeID: String? = nil
    /// For a check-in not accepted: why, in the words of the first rule that failed (else the
    /// first that asked for review).
    public var reason: String? = nil
}

/// What a replay did besides its events.
public struct ReplaySummary: Sendable {
    /// Fixes read.
    public var fixes = 0
    /// Fixes not used: no time, out of time order, or too inaccurate for the hunt.
    public var ignored = 0
    /// What the replay noticed and went on after, one line each.
    public var warnings: [String] = []
    /// Every fix used, for maps (kept only when asked).
    public var track: [Coordinate] = []
}

/// Replays a recorded walk through the engine: the fixes, in time order, go
/// through a `FenceTracker`, and a stay at a stop (its `dwell` event) becomes a
/// check-in through the same `Verifier` rules as a device check-in (recorded
/// with source `replay`); hunt completions and badges follow the check-in that
/// earned them (from scoring).
///
/// A fix's accuracy is its `hAcc` extension, else `hdop` x 5 m (a typical
/// receiver's error per unit of dilution), else unknown; fixes less accurate
/// than the hunt's `max_accuracy_m` are ignored. The walk's usable fixes are
/// read first (about 40 bytes a point), then tracked.
public struct Replayer: Sendable {
    /// Where the hunts are and the check-ins go.
    public var store: any LeagueStore
    /// Whose walk it is.
    public var player: PlayerRecord
    /// The one hunt to play, or nil for every hunt.
    public var huntID: String?
    /// Seconds inside a stop that make a stay (a check-in).
    public var dwellSeconds: Double = 10
    /// Metres outside a stop before the player has left it.
    public var exitBufferMeters: Double = 10
    /// Metres of accuracy per unit of horizontal dilution of precision.
    public static let metersPerHDOP = 5.0
    /// Fixes whose store lookups are asked in one read.
    static let chunkSize = 4096
    /// The rules that judge each stay.
    public var verifier = Verifier()
    /// Keeps every fix used in the summary's `track`, for maps.
    public var keepTrack = false
    /// When the check-ins are received: the server's clock for a replay that records (so the
    /// freshness rules judge an old walk as they would any late fix), or nil to receive each at
    /// its own fix's time (a dry run: the walk's timeline, to test a hunt before it goes live).
    public var receivedAt: Date?

    /// A replay of `player`'s walks on `store`, of `huntID` or of every hunt.
    public init(store: any LeagueStore, player: PlayerRecord, huntID: String?) {
        self.store = store
        self.player = player
        self.huntID = huntID
    }

    /// One usable fix of the walk.
    struct WalkFix {
        var position: Coordinate
        var time: Date
        var accuracy: Double?
        /// The first fix of a track or track segment: no crossing from the fix before it.
        var startsSegment: Bool
    }

    /// Replays `path`, calling `emit` for each event in time order.
    /// - Throws: `GPXError` for an unreadable or malformed file, `LeagueError`
    ///   for an unknown hunt, `ReplayError` for a walk without any timed point.
    public func run(path: String, emit: (ReplayEvent) -> Void) async throws -> ReplaySummary {
        let hunts = try await store.hunts().map(\.hunt).filter { huntID == nil || $0.id == huntID }
        if let huntID, hunts.isEmpty {
            throw LeagueError.unknownHunt(id: huntID, known: try await store.hunts().map(\.hunt.id))
        }
        let maxAccuracy = hunts.map(\.maxAccuracyMeters).max() ?? 50
        let (fixes, readSummary, timed) = try Self.read(
            path: path, maxAccuracy: maxAccuracy, keepTrack: keepTrack)
        var summary = readSummary
        if summary.fixes > 0 && timed == 0 { throw ReplayError.noTimes(file: path) }

        // Covering tests in memory; the store answers the undecided and the crossings, a chunk of
        // fixes at a time in one read (they do not depend on the check-ins made along the way).
        let allStops = hunts.flatMap(\.stops)
        let index = GeofenceIndex(stops: allStops)
        var tracker = FenceTracker(
            stops: allStops, dwellSeconds: dwellSeconds, exitBufferMeters: exitBufferMeters)
        var found: [Int] = []
        var previous: WalkFix?
        var start = 0
        while start < fixes.count {
            let chunk = fixes[start..<min(fixes.count, start + Self.chunkSize)]
            start += chunk.count
            var covering: [[StopReference]?] = []
            var undecided: [Coordinate] = []
            var crossing: [Segment?] = []
            var before = previous
            for fix in chunk {
                let position = fix.position
                if index.covering(latitude: position.latitude, longitude: position.longitude, into: &found) {
                    covering.append(
                        found.map {
                            let e = index.entries[$0]
                            return StopReference(huntID: e.huntID, stopID: e.stopID, name: e.name)
                        })
                } else {
                    covering.append(nil)
                    undecided.append(position)
                }
                if let before, !fix.startsSegment,
                    index.mayCross(
                        before.position.latitude, before.position.longitude, position.latitude,
                        position.longitude)
                {
                    crossing.append(Segment(from: before.position, to: position))
                } else {
                    crossing.append(nil)
                }
                before = fix
            }
            var asked = try await store.stops(covering: undecided, inHunt: huntID).makeIterator()
            var crossed = try await store.stops(crossedBy: crossing.compactMap { $0 }, inHunt: huntID)
                .makeIterator()
            for (offset, fix) in chunk.enumerated() {
                let inside =
                    covering[offset] ?? (asked.next() ?? []).filter { tracker.stops[$0.stopID] != nil }
                let passes = crossing[offset] == nil ? [] : crossed.next() ?? []
                let previousTime = fix.startsSegment ? nil : previous?.time
                for event in tracker.update(
                    position: fix.position, time: fix.time, accuracyMeters: fix.accuracy, covering: inside,
                    crossed: passes, previousTime: previousTime)
                {
                    switch event {
                    case .enter(let stopID, let at):
                        emit(
                            ReplayEvent(
                                time: at, kind: .enter, huntID: tracker.stops[stopID]!.huntID, stopID: stopID,
                                points: 0, verdict: nil))
                    case .exit(let stopID, let at):
                        emit(
                            ReplayEvent(
                                time: at, kind: .exit, huntID: tracker.stops[stopID]!.huntID, stopID: stopID,
                                points: 0, verdict: nil))
                    case .dwell(let stopID, let at, let position, let accuracy):
                        try await checkIn(
                            tracker.stops[stopID]!, at: at, position: position, accuracy: accuracy, emit: emit
                        )
                    }
                }
                previous = fix
            }
        }
        summary.track = keepTrack ? fixes.map(\.position) : []
        return summary
    }

    /// The walk's usable fixes in file order, what was skipped, and how many points had a time.
    static func read(path: String, maxAccuracy: Double, keepTrack: Bool) throws -> (
        [WalkFix], ReplaySummary, Int
    ) {
        var summary = ReplaySummary()
        var fixes: [WalkFix] = []
        var previousTime: Date?
        var segmentStart = true
        var timed = 0
        try GPXReader.read(path: path) { event in
            // A new track or segment means the receiver lost its fix (GPX 1.1 trksegType):
            // the straight line from the last point is not a path walked, so no crossing is looked for.
            if case .segmentStart = event { segmentStart = true }
            if case .trackStart = event { segmentStart = true }
            guard case .point(let point) = event, point.kind == .track else {
                if case .skipped(let line, let reason) = event {
                    summary.warnings.append("\(path):\(line): point skipped: \(reason)")
                }
                return
            }
            summary.fixes += 1
            guard let time = point.time else {
                summary.ignored += 1
                return
            }
            timed += 1
            if let previousTime, time < previousTime {
                summary.ignored += 1
                summary.warnings.append(
                    "\(path):\(point.line): point skipped: earlier than the point before it")
                return
            }
            let accuracy = point.horizontalAccuracyMeters ?? point.hdop.map { $0 * Self.metersPerHDOP }
            if let accuracy, accuracy > maxAccuracy {
                summary.ignored += 1
                return
            }
            fixes.append(
                WalkFix(
                    position: point.coordinate, time: time, accuracy: accuracy, startsSegment: segmentStart))
            segmentStart = false
            previousTime = time
        } restart: {
            summary = ReplaySummary()
            fixes.removeAll()
            previousTime = nil
            segmentStart = true
            timed = 0
        }
        return (fixes, summary, timed)
    }

    private func checkIn(
        _ stop: Stop, at time: Date, position: Coordinate, accuracy: Double?, emit: (ReplayEvent) -> Void
    )
        async throws
    {
        let submission = Submission(
            player: player.id, evidence: .device(position: position, time: time, accuracyMeters: accuracy),
            huntID: stop.huntID, receivedAt: receivedAt ?? time, isReplay: true)
        let verifier = self.verifier
        let recorded = try await store.record(submission, photoFile: nil) { verifier.evaluate($0, facts: $1) }
        let decision = recorded.decision
        emit(
            ReplayEvent(
                time: time, kind: .checkIn, huntID: decision.hunt?.id ?? stop.huntID,
                stopID: decision.stop?.id ?? stop.id,
                points: decision.points, verdict: decision.verdict.rawValue,
                reason: (decision.rules.first { $0.outcome == .failed }
                    ?? decision.rules.first { $0.outcome == .needsReview })?.detail))
        for award in recorded.awards {
            switch award.kind {
            case .bonus:
                emit(
                    ReplayEvent(
                        time: time, kind: .huntComplete, huntID: award.huntID, stopID: nil,
                        points: award.points, verdict: nil))
            case .badge:
                emit(
                    ReplayEvent(
                        time: time, kind: .badge, huntID: award.huntID, stopID: nil, points: award.points,
                        verdict: nil,
                        badgeID: award.badgeID))
            case .stop, .answer:
                break
            }
        }
    }
}

/// Why a walk cannot be replayed.
public enum ReplayError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// The walk has points but none with a `<time>`.
    case noTimes(file: String)

    /// The file and what is missing.
    public var description: String {
        switch self {
        case .noTimes(let file): return "\(file): the walk's points have no <time>; a replay needs times"
        }
    }

    /// Invalid data: the walk cannot be replayed.
    public var errorKind: ErrorKind { .invalidData }
}

extension ReplayEvent {
    /// `{time, event, hunt, stop, points, verdict}` (and `badge` for badge events): one line of `vsh replay --json`.
    public var json: JSONValue {
        var object: JSONObject = [
            "time": .string(RFC3339.format(time)), "event": .string(kind.rawValue), "hunt": .string(huntID),
            "stop": .optional(stopID), "points": .int(points), "verdict": .optional(verdict),
        ]
        if kind == .badge { object["badge"] = .optional(badgeID) }
        if kind == .checkIn, let reason { object["reason"] = .string(reason) }
        return .object(object)
    }
}
