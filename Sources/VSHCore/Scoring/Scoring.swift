public import Foundation

/// What scoring needs of a hunt: its stops' ids and points in order, the bonus, and the rules.
public struct ScoringHunt: Sendable {
    /// The hunt's id.
    public var id: String
    /// Its stops' ids and points, in order.
    public var stops: [(id: String, points: Int)]
    /// The completion bonus.
    public var bonusPoints: Int
    /// Its difficulty (for badges that count hunts by difficulty).
    public var difficulty: Hunt.Difficulty
    /// Whether stops must be visited in order for the bonus.
    public var ordered: Bool
    /// The hunt's time zone (for time-of-day badges).
    public var timeZone: TimeZone
    /// Points for the right answer to a stop's question, by stop (stops without are absent).
    public var answerPoints: [String: Int] = [:]

    /// A scoring hunt from its parts.
    public init(
        id: String, stops: [(id: String, points: Int)], bonusPoints: Int, difficulty: Hunt.Difficulty,
        ordered: Bool, timeZone: TimeZone
    ) {
        self.id = id
        self.stops = stops
        self.bonusPoints = bonusPoints
        self.difficulty = difficulty
        self.ordered = ordered
        self.timeZone = timeZone
    }

    /// What scoring needs of a hunt definition.
    public init(_ hunt: Hunt) {
        self.init(
            id: hunt.id, stops: hunt.stops.map { ($0.id, $0.points) }, bonusPoints: hunt.bonusPoints,
            difficulty: hunt.difficulty,
            ordered: hunt.ordered,
            timeZone: TimeZone(identifier: hunt.timeZone) ?? TimeZone(identifier: "UTC")!)
        for stop in hunt.stops {
            if let points = stop.question?.points, points > 0 { answerPoints[stop.id] = points }
        }
    }
}

/// An accepted check-in as scoring sees it.
public struct ScoredCheckIn: Sendable {
    /// The check-in's id.
    public var id: Int64
    /// Its hunt.
    public var huntID: String
    /// Its stop.
    public var stopID: String
    /// The fix's time: when the player was there.
    public var time: Date
    /// The time for badges of the hour or the day (`time_window`, `consecutive_days`): GPS time or
    /// the device's fix time, else the time the check-in was received, never a camera's clock
    /// (which the phone's owner sets). `time` when nothing else is known.
    public var clock: Date
    /// Whether it answered its stop's question right (the first such check-in earns the answer's points).
    public var answered: Bool

    /// A scored check-in from its parts.
    public init(
        id: Int64, huntID: String, stopID: String, time: Date, clock: Date? = nil, answered: Bool = false
    ) {
        self.id = id
        self.huntID = huntID
        self.stopID = stopID
        self.time = time
        self.clock = clock ?? time
        self.answered = answered
    }
}

/// Something that earned points: a stop's first visit, a hunt's completion bonus, a badge.
public struct ScoreEvent: Equatable, Sendable {
    /// Stop points, a hunt's bonus, a badge, or a right answer to a stop's question.
    public enum Kind: String, Sendable {
        case stop, bonus, badge, answer

        /// Whether a check-in's answer lists it among its awards (a stop's and an answer's points
        /// are in its `points`).
        public var isAward: Bool { self == .bonus || self == .badge }
    }
    /// Which of the three.
    public var kind: Kind
    /// The hunt of the check-in that earned it.
    public var huntID: String
    /// The stop (for stop points).
    public var stopID: String?
    /// The badge (for badge points).
    public var badgeID: String?
    /// Points earned.
    public var points: Int
    /// When they were earned: the fix time of the check-in that earned them.
    public var at: Date
    /// The check-in that earned them.
    public var checkInID: Int64

    /// An event from its parts.
    public init(
        kind: Kind, huntID: String, stopID: String? = nil, badgeID: String? = nil, points: Int, at: Date,
        checkInID: Int64
    ) {
        self.kind = kind
        self.huntID = huntID
        self.stopID = stopID
        self.badgeID = badgeID
        self.points = points
        self.at = at
        self.checkInID = checkInID
    }
}

/// Points, completions and badges, derived from a player's accepted check-ins
/// and nothing else: revoking a check-in and scoring again withdraws what it earned.
///
/// Check-ins are taken in time order (ties by id). A stop's points come with
/// its first accepted visit; a hunt's bonus once every stop is visited (in file
/// order for an `ordered` hunt); a badge when its rule first holds after a
/// check-in, stamped with that check-in. Stops or hunts no longer defined earn nothing.
public enum Scoring {
    /// Every score event a player's accepted check-ins earn, in the order they were earned: a stop's points on its first visit, a hunt's bonus when its last stop is visited (in order for ordered hunts), and each badge when its rule is first met.
    public static func events(for checkIns: [ScoredCheckIn], hunts: [ScoringHunt], badges: [Badge])
        -> [ScoreEvent]
    {
        var fold = Fold(hunts: hunts, badges: badges)
        var events: [ScoreEvent] = []
        for checkIn in checkIns.sorted(by: { ($0.time, $0.id) < ($1.time, $1.id) }) {
            fold.add(checkIn, into: &events)
        }
        return events
    }

    /// The events one more check-in earns, given the events a player's earlier check-ins earned
    /// (`events(for:)`, in their order), when it comes after all of them (by time, then id):
    /// incremental scoring, for a player with thousands of check-ins, whose earlier events are
    /// then unchanged. A badge of days in a row (`consecutive_days`) not yet earned needs the
    /// local days of the earlier check-ins that count, in the range `localDaysNeeded` gives
    /// (`localDays(of:)`); nil when it has none of them to go on, or when a badge of
    /// the hour (`time_window`) that needs more than one check-in in its window is not yet
    /// earned (it counts the earlier check-ins in it): the caller then scores them all. `ScoringEquivalenceTests` holds it to `events(for:)`.
    public static func eventsAfter(
        _ earlier: [ScoreEvent], adding checkIn: ScoredCheckIn, hunts: [ScoringHunt], badges: [Badge],
        earlierLocalDays: Set<Int>? = nil
    ) -> [ScoreEvent]? {
        eventsAfter(
            earlier, adding: checkIn, layout: Layout(hunts: hunts, badges: badges),
            earlierLocalDays: earlierLocalDays)
    }

    /// `eventsAfter(_:adding:hunts:badges:earlierLocalDays:)` over a layout made before.
    public static func eventsAfter(
        _ earlier: [ScoreEvent], adding checkIn: ScoredCheckIn, layout: Layout,
        earlierLocalDays: Set<Int>? = nil
    ) -> [ScoreEvent]? {
        guard var fold = Fold(layout: layout, resumingFrom: earlier) else { return nil }
        if fold.awaitsDays > 1 {
            guard let earlierLocalDays else { return nil }
            fold.localDays = earlierLocalDays
        }
        var events: [ScoreEvent] = []
        fold.add(checkIn, into: &events)
        return events
    }

    /// The local days (in each check-in's hunt's zone, as `localDays(of:)` counts them) whose
    /// earlier check-ins `eventsAfter` needs to know of, or nil when it needs none.
    public static func localDaysNeeded(
        _ earlier: [ScoreEvent], adding checkIn: ScoredCheckIn, hunts: [ScoringHunt], badges: [Badge]
    ) -> ClosedRange<Int>? {
        localDaysNeeded(earlier, adding: checkIn, layout: Layout(hunts: hunts, badges: badges))
    }

    /// `localDaysNeeded(_:adding:hunts:badges:)` over a layout made before.
    public static func localDaysNeeded(_ earlier: [ScoreEvent], adding checkIn: ScoredCheckIn, layout: Layout)
        -> ClosedRange<Int>?
    {
        guard let fold = Fold(layout: layout, resumingFrom: earlier), fold.awaitsDays > 1,
            let day = fold.localDay(of: checkIn)
        else { return nil }
        return (day - fold.awaitsDays + 1)...(day - 1)
    }

    /// The local days check-ins count on for badges of days in a row (those that count for
    /// something: not at a stop or hunt no longer defined).
    public static func localDays(of checkIns: [ScoredCheckIn], hunts: [ScoringHunt]) -> Set<Int> {
        localDays(of: checkIns, layout: Layout(hunts: hunts, badges: []))
    }

    /// `localDays(of:hunts:)` over a layout made before (its badges play no part).
    public static func localDays(of checkIns: [ScoredCheckIn], layout: Layout) -> Set<Int> {
        let fold = Fold(layout: layout)
        return Set(checkIns.compactMap { fold.localDay(of: $0) })
    }

    /// Hunts and badges by small integers, as `Fold` reads them: made once for a catalog and shared
    /// by every fold over it (a ledger asks up to three folds a check-in, and each made its own
    /// dictionaries of every stop and badge: a twentieth of a server's check-in).
    public final class Layout: Sendable {
        let hunts: [ScoringHunt]
        let badges: [Badge]
        let huntIndex: [String: Int]
        let slotOf: [String: Int]
        let stopPoints: [String: (hunt: String, slot: Int, points: Int)]
        let huntSlots: [[Int]]
        let rules: [Badge.Rule]
        let earnedSlot: [Int]
        let firstOfID: [String: Int]
        let huntIDs: [String]

        /// The layout of these hunts and badges.
        public init(hunts: [ScoringHunt], badges: [Badge]) {
            var huntIndex: [String: Int] = [:]
            for (h, hunt) in hunts.enumerated() where huntIndex[hunt.id] == nil { huntIndex[hunt.id] = h }
            var slotOf: [String: Int] = [:]
            var stopPoints: [String: (hunt: String, slot: Int, points: Int)] = [:]
            var huntSlots: [[Int]] = []
            for hunt in hunts {
                var slots: [Int] = []
                for stop in hunt.stops {
                    let slot = slotOf[stop.id] ?? slotOf.count
                    slotOf[stop.id] = slot
                    slots.append(slot)
                    stopPoints[stop.id] = (hunt.id, slot, stop.points)
                }
                huntSlots.append(slots)
            }
            var earnedSlot: [Int] = []
            var firstOfID: [String: Int] = [:]
            for (b, badge) in badges.enumerated() {
                earnedSlot.append(firstOfID[badge.id] ?? b)
                if firstOfID[badge.id] == nil { firstOfID[badge.id] = b }
            }
            (self.hunts, self.badges, self.huntIndex, self.slotOf) = (hunts, badges, huntIndex, slotOf)
            (self.stopPoints, self.huntSlots, self.rules) = (stopPoints, huntSlots, badges.map(\.rule))
            (self.earnedSlot, self.firstOfID, self.huntIDs) = (earnedSlot, firstOfID, hunts.map(\.id))
        }
    }

    /// The one pass: the state of a player's scoring after the check-ins added so far.
    struct Fold {
        // Everything by small integers, read in place: a player with thousands of check-ins is
        // scored in one pass without copying a hunt or a badge (or hashing their ids) per check-in.
        let hunts: [ScoringHunt]
        let badges: [Badge]
        let huntIndex: [String: Int]
        let slotOf: [String: Int]  // each distinct stop id: one slot (first visits are by stop id)
        let stopPoints: [String: (hunt: String, slot: Int, points: Int)]
        let huntSlots: [[Int]]
        let rules: [Badge.Rule]
        let earnedSlot: [Int]  // badges sharing an id are earned once, by the first
        let firstOfID: [String: Int]
        let huntIDs: [String]

        var firstVisit: [Date?]
        var visitedCount = 0
        var visitOrder: [[Int]]  // hunt -> slots in first-visit order
        var completed: [Bool]
        var completedCount = 0
        var earned: [Bool]
        var windowCounts: [Int]
        var localDays = Set<Int>()
        var checkInCount = 0
        var answered = Set<String>()  // stops whose question's points are earned (by stop id)

        init(layout: Layout) {
            (hunts, badges, huntIndex, slotOf) = (
                layout.hunts, layout.badges, layout.huntIndex, layout.slotOf
            )
            (stopPoints, huntSlots, rules) = (layout.stopPoints, layout.huntSlots, layout.rules)
            (earnedSlot, firstOfID, huntIDs) = (layout.earnedSlot, layout.firstOfID, layout.huntIDs)
            firstVisit = [Date?](repeating: nil, count: slotOf.count)
            visitOrder = [[Int]](repeating: [], count: hunts.count)
            completed = [Bool](repeating: false, count: hunts.count)
            earned = [Bool](repeating: false, count: badges.count)
            windowCounts = [Int](repeating: 0, count: badges.count)
        }

        init(hunts: [ScoringHunt], badges: [Badge]) {
            self.init(layout: Layout(hunts: hunts, badges: badges))
        }

        /// The state after the check-ins that earned `events`, rebuilt from those events alone;
        /// nil when it needs the check-ins that earned nothing (see `eventsAfter`).
        init?(layout: Layout, resumingFrom events: [ScoreEvent]) {
            self.init(layout: layout)
            for event in events {
                switch event.kind {
                case .stop:
                    guard let stopID = event.stopID, let slot = slotOf[stopID],
                        let h = huntIndex[event.huntID],
                        firstVisit[slot] == nil
                    else { return nil }
                    firstVisit[slot] = event.at
                    visitedCount += 1
                    visitOrder[h].append(slot)
                case .bonus:
                    guard let h = huntIndex[event.huntID], !completed[h] else { return nil }
                    completed[h] = true
                    completedCount += 1
                case .badge:
                    guard let badgeID = event.badgeID, let b = firstOfID[badgeID] else { return nil }
                    earned[earnedSlot[b]] = true
                case .answer:
                    guard let stopID = event.stopID, answered.insert(stopID).inserted else { return nil }
                }
            }
            // Any event came from a scored check-in; a first_checkin badge not yet earned means none.
            checkInCount = events.isEmpty ? 0 : 1
            for b in rules.indices where !earned[earnedSlot[b]] {
                switch rules[b] {
                case .timeWindow(_, _, let count):
                    // Not earned with one check-in in the window needed: no earlier check-in was in
                    // it, so its count is 0 (unless another badge of the same id shares the count).
                    // More needed: the count is the earlier check-ins' own, which events do not tell.
                    let shared = earnedSlot.indices.contains { $0 != b && earnedSlot[$0] == earnedSlot[b] }
                    if count > 1 || shared { return nil }
                case .consecutiveDays(let days): awaitsDays = max(awaitsDays, days)
                default: break
                }
            }
        }

        /// The longest run of days that a badge not yet earned awaits (0: none).
        private(set) var awaitsDays = 0

        /// The local day of a check-in that counts, in its hunt's zone.
        func localDay(of checkIn: ScoredCheckIn) -> Int? {
            guard let stop = stopPoints[checkIn.stopID], stop.hunt == checkIn.huntID,
                let h = huntIndex[checkIn.huntID]
            else { return nil }
            return localClock(checkIn.clock, in: hunts[h].timeZone).day
        }

        /// Scores one more check-in (in time order), appending what it earns.
        mutating func add(_ checkIn: ScoredCheckIn, into events: inout [ScoreEvent]) {
            guard let stop = stopPoints[checkIn.stopID], stop.hunt == checkIn.huntID,
                let h = huntIndex[checkIn.huntID]
            else { return }
            checkInCount += 1
            if firstVisit[stop.slot] == nil {
                firstVisit[stop.slot] = checkIn.time
                visitedCount += 1
                visitOrder[h].append(stop.slot)
                events.append(
                    ScoreEvent(
                        kind: .stop, huntID: huntIDs[h], stopID: checkIn.stopID, points: stop.points,
                        at: checkIn.time, checkInID: checkIn.id))
            }
            if checkIn.answered, let points = hunts[h].answerPoints[checkIn.stopID],
                answered.insert(checkIn.stopID).inserted
            {
                events.append(
                    ScoreEvent(
                        kind: .answer, huntID: huntIDs[h], stopID: checkIn.stopID, points: points,
                        at: checkIn.time, checkInID: checkIn.id))
            }
            if !completed[h], huntSlots[h].allSatisfy({ firstVisit[$0] != nil }) {
                let inOrder = !hunts[h].ordered || visitOrder[h] == huntSlots[h]
                if inOrder {
                    completed[h] = true
                    completedCount += 1
                    events.append(
                        ScoreEvent(
                            kind: .bonus, huntID: huntIDs[h], points: hunts[h].bonusPoints, at: checkIn.time,
                            checkInID: checkIn.id))
                }
            }
            let (dayNumber, minuteOfDay) = localClock(checkIn.clock, in: hunts[h].timeZone)
            localDays.insert(dayNumber)

            for b in rules.indices where !earned[earnedSlot[b]] {
                let holds: Bool
                switch rules[b] {
                case .firstCheckIn:
                    holds = checkInCount >= 1
                case .stopsVisited(let count):
                    holds = visitedCount >= count
                case .huntsCompleted(let count):
                    holds = completedCount >= count
                case .huntCompleted(let id):
                    holds = huntIndex[id].map { completed[$0] } ?? false
                case .difficultyCompleted(let difficulty):
                    var any = false
                    var all = true
                    for k in hunts.indices where hunts[k].difficulty == difficulty {
                        any = true
                        if !completed[k] { all = false }
                    }
                    holds = any && all
                case .timeWindow(let from, let to, let count):
                    let inside =
                        from < to
                        ? (minuteOfDay >= from && minuteOfDay < to)
                        : (minuteOfDay >= from || minuteOfDay < to)
                    if inside { windowCounts[earnedSlot[b]] += 1 }
                    holds = windowCounts[earnedSlot[b]] >= count
                case .stopsWithin(let count, let hours):
                    var within = 0
                    for case let time? in firstVisit
                    where time <= checkIn.time && checkIn.time.timeIntervalSince(time) <= hours * 3600 {
                        within += 1
                    }
                    holds = within >= count
                case .consecutiveDays(let days):
                    var streak = 1
                    while localDays.contains(dayNumber - streak) { streak += 1 }
                    holds = streak >= days
                }
                if holds {
                    earned[earnedSlot[b]] = true
                    events.append(
                        ScoreEvent(
                            kind: .badge, huntID: huntIDs[h], badgeID: badges[b].id, points: badges[b].points,
                            at: checkIn.time, checkInID: checkIn.id))
                }
            }
        }
    }

    /// The local day (days since 1970-01-01) and minute of the day of `date` in `zone`: the
    /// zone's offset at that instant added to the Unix time, so the proleptic Gregorian calendar
    /// without a `Calendar` (making one and asking it for components was most of a rescore of a
    /// player with thousands of check-ins). Held to `Calendar` across zones and DST changes by a test.
    public static func localClock(_ date: Date, in zone: TimeZone) -> (day: Int, minuteOfDay: Int) {
        // Clamped to about ±31 million years, where Int cannot overflow.
        let seconds = Swift.min(Swift.max(date.timeIntervalSince1970, -1e15), 1e15)
        let local = Int(seconds.rounded(.down)) + zone.secondsFromGMT(for: date)
        let day = local >= 0 ? local / 86_400 : -((-local + 86_399) / 86_400)
        return (day, (local - day * 86_400) / 60)
    }
}
