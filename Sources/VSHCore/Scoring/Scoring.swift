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

    /// A scored check-in from its parts.
    public init(id: Int64, huntID: String, stopID: String, time: Date, clock: Date? = nil) {
        self.id = id
        self.huntID = huntID
        self.stopID = stopID
        self.time = time
        self.clock = clock ?? time
    }
}

/// Something that earned points: a stop's first visit, a hunt's completion bonus, a badge.
public struct ScoreEvent: Equatable, Sendable {
    /// Stop points, a hunt's bonus, or a badge.
    public enum Kind: String, Sendable { case stop, bonus, badge }
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
        let huntsByID = Dictionary(uniqueKeysWithValues: hunts.map { ($0.id, $0) })
        var stopPoints: [String: (hunt: String, points: Int)] = [:]
        for hunt in hunts { for stop in hunt.stops { stopPoints[stop.id] = (hunt.id, stop.points) } }

        var events: [ScoreEvent] = []
        var firstVisit: [String: Date] = [:]
        var visitOrder: [String: [String]] = [:]  // hunt -> stops in first-visit order
        var completed = Set<String>()
        var earned = Set<String>()
        var windowCounts: [String: Int] = [:]
        var localDays = Set<Int>()
        var checkInCount = 0

        for checkIn in checkIns.sorted(by: { ($0.time, $0.id) < ($1.time, $1.id) }) {
            guard let stop = stopPoints[checkIn.stopID], stop.hunt == checkIn.huntID,
                let hunt = huntsByID[checkIn.huntID]
            else { continue }
            checkInCount += 1
            if firstVisit[checkIn.stopID] == nil {
                firstVisit[checkIn.stopID] = checkIn.time
                visitOrder[hunt.id, default: []].append(checkIn.stopID)
                events.append(
                    ScoreEvent(
                        kind: .stop, huntID: hunt.id, stopID: checkIn.stopID, points: stop.points,
                        at: checkIn.time, checkInID: checkIn.id))
            }
            if !completed.contains(hunt.id), hunt.stops.allSatisfy({ firstVisit[$0.id] != nil }) {
                let inOrder = !hunt.ordered || visitOrder[hunt.id] == hunt.stops.map(\.id)
                if inOrder {
                    completed.insert(hunt.id)
                    events.append(
                        ScoreEvent(
                            kind: .bonus, huntID: hunt.id, points: hunt.bonusPoints, at: checkIn.time,
                            checkInID: checkIn.id))
                }
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = hunt.timeZone
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: checkIn.clock)
            let minuteOfDay = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            let dayNumber = daysFromCivil(parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
            localDays.insert(dayNumber)

            for badge in badges where !earned.contains(badge.id) {
                let holds: Bool
                switch badge.rule {
                case .firstCheckIn:
                    holds = checkInCount >= 1
                case .stopsVisited(let count):
                    holds = firstVisit.count >= count
                case .huntsCompleted(let count):
                    holds = completed.count >= count
                case .huntCompleted(let id):
                    holds = completed.contains(id)
                case .difficultyCompleted(let difficulty):
                    let ofKind = hunts.filter { $0.difficulty == difficulty }
                    holds = !ofKind.isEmpty && ofKind.allSatisfy { completed.contains($0.id) }
                case .timeWindow(let from, let to, let count):
                    let inside =
                        from < to
                        ? (minuteOfDay >= from && minuteOfDay < to)
                        : (minuteOfDay >= from || minuteOfDay < to)
                    if inside { windowCounts[badge.id, default: 0] += 1 }
                    holds = windowCounts[badge.id, default: 0] >= count
                case .stopsWithin(let count, let hours):
                    let times = firstVisit.values.filter {
                        $0 <= checkIn.time && checkIn.time.timeIntervalSince($0) <= hours * 3600
                    }
                    holds = times.count >= count
                case .consecutiveDays(let days):
                    var streak = 1
                    while localDays.contains(dayNumber - streak) { streak += 1 }
                    holds = streak >= days
                }
                if holds {
                    earned.insert(badge.id)
                    events.append(
                        ScoreEvent(
                            kind: .badge, huntID: hunt.id, badgeID: badge.id, points: badge.points,
                            at: checkIn.time, checkInID: checkIn.id))
                }
            }
        }
        return events
    }

    /// Days since 1970-01-01 of a calendar date.
    static func daysFromCivil(_ y: Int, _ m: Int, _ d: Int) -> Int { RFC3339.daysFromCivil(y, m, d) }
}
