import Foundation

/// The one procedure that scores a player's newly accepted check-ins, for every backend: whether
/// their stored events can be gone on from (`Scoring.eventsAfter`, one new check-in after the
/// other, in time order) or everything must be scored again (`Scoring.events(for:)`), which
/// questions about earlier check-ins a badge of days in a row needs answered on the way, and the
/// new events and running totals to write. The stores keep only their reads and writes: they
/// create a ledger with what they read, answer each `LocalDaysQuestion` it asks with the player's
/// other accepted check-ins in its window, and write what it decides (`.done`) or rescore (`.rescore`).
/// The memory store always scores in full: it is the oracle the others are tested against.
public struct ScoreLedger: Sendable {
    /// What the ledger needs or decided.
    public enum Step: Sendable {
        /// Answer this question (`answer(_:)`), then look at `step` again.
        case ask(LocalDaysQuestion)
        /// Score all of the player's accepted check-ins again (`Scoring.events(for:)`).
        case rescore
        /// Write `new` and the totals of `all` (every event of the player's after them).
        case done(new: [ScoreEvent], all: [ScoreEvent])
    }

    /// The player.
    public let player: PlayerID
    /// What the ledger needs now, or what it decided.
    public private(set) var step: Step

    private let added: [ScoredCheckIn]
    /// The hunts and badges, laid out once for every fold the ledger makes.
    private let layout: Scoring.Layout
    private var before: [ScoreEvent] = []
    private var new: [ScoreEvent] = []
    private var index = 0
    private var days: Set<Int>?

    /// A ledger for one player's check-ins `added`, just recorded as accepted.
    /// - Parameters:
    ///   - added: the new check-ins (any order); nil when the store could not read them all back
    ///     as accepted (then everything is scored again).
    ///   - stored: the player's stored events, in the order they were earned; nil when they could
    ///     not be read or hold a kind this version does not know.
    ///   - latestEarlier: the player's latest other check-in that can count (accepted or pending,
    ///     by fix time, then id): going on is right only when every new one comes after it.
    public init(
        player: PlayerID, added: [ScoredCheckIn]?, stored: [ScoreEvent]?,
        latestEarlier: (epoch: Double, id: Int64)?, hunts: [ScoringHunt], badges: [Badge]
    ) {
        self.init(
            player: player, added: added, stored: stored, latestEarlier: latestEarlier,
            layout: Scoring.Layout(hunts: hunts, badges: badges))
    }

    /// A ledger over a layout of the hunts and badges made before (a store keeps one a catalog).
    public init(
        player: PlayerID, added: [ScoredCheckIn]?, stored: [ScoreEvent]?,
        latestEarlier: (epoch: Double, id: Int64)?, layout: Scoring.Layout
    ) {
        self.player = player
        self.added = (added ?? []).sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        self.layout = layout
        step = .rescore
        guard let added, let stored, let first = self.added.first, !added.isEmpty else { return }
        if let latest = latestEarlier,
            !((latest.epoch, latest.id) < (first.time.timeIntervalSince1970, first.id))
        {
            return
        }
        before = stored
        advance()
    }

    /// Answers the question of the last `.ask` step with the player's accepted check-ins whose
    /// clock falls in its window (the store may include the new ones: the ledger leaves them out).
    public mutating func answer(_ candidates: [ScoredCheckIn]) {
        guard case .ask(let question) = step else { return }
        let counted = candidates.filter { $0.id != question.excluded && !question.later.contains($0.id) }
        days = Scoring.localDays(of: counted, layout: layout).filter(question.days.contains)
        advance()
    }

    private mutating func advance() {
        while index < added.count {
            let checkIn = added[index]
            if days == nil,
                let range = Scoring.localDaysNeeded(before, adding: checkIn, layout: layout)
            {
                step = .ask(
                    LocalDaysQuestion(
                        player: player, excluded: checkIn.id, days: range,
                        later: Set(added[(index + 1)...].map(\.id))))
                return
            }
            // No question asked: the check-in counts on no local day (at a stop no longer defined),
            // so the earlier days cannot change what it earns.
            guard
                let events = Scoring.eventsAfter(
                    before, adding: checkIn, layout: layout, earlierLocalDays: days ?? [])
            else {
                step = .rescore
                return
            }
            before += events
            new += events
            index += 1
            days = nil
        }
        step = before.isEmpty ? .rescore : .done(new: new, all: before)
    }
}

/// A question a ledger asks a store: on which local days `days` did the player's other accepted
/// check-ins count? The store answers with the player's accepted check-ins (at a stop of a hunt,
/// with a fix time) whose clock (`clock_epoch`, else the fix time) falls in `window`.
public struct LocalDaysQuestion: Sendable, Equatable {
    /// The player.
    public let player: PlayerID
    /// The new check-in the question is for (left out of the answer).
    public let excluded: Int64
    /// The local days (days since 1970 in each check-in's hunt's zone) the answer is about.
    public let days: ClosedRange<Int>
    /// The player's new check-ins after `excluded` (left out of the answer).
    public let later: Set<Int64>

    /// Epoch seconds that surely hold the local days: a local day is at most 14 hours from UTC's,
    /// so 15 hours on each side.
    public var window: ClosedRange<Double> {
        (Double(days.lowerBound) * 86_400 - 54_000)...(Double(days.upperBound + 1) * 86_400 + 54_000)
    }

    /// A question.
    public init(player: PlayerID, excluded: Int64, days: ClosedRange<Int>, later: Set<Int64>) {
        self.player = player
        self.excluded = excluded
        self.days = days
        self.later = later
    }
}

/// A player's running totals (the all-time board's row), from all of their events.
public struct ScoreTotals: Sendable, Equatable {
    /// Points of every event.
    public var points: Int
    /// Hunt bonuses (hunts completed).
    public var hunts: Int
    /// Stop events (stops visited).
    public var stops: Int
    /// Badges.
    public var badges: Int
    /// When the last event was earned (epoch seconds): ties on the board go to whoever got there first.
    public var reached: Double

    /// Totals from their values.
    public init(points: Int, hunts: Int, stops: Int, badges: Int, reached: Double) {
        self.points = points
        self.hunts = hunts
        self.stops = stops
        self.badges = badges
        self.reached = reached
    }

    /// The totals of `events`; nil for none (the player has no row).
    public init?(_ events: [ScoreEvent]) {
        guard let reached = events.map(\.at.timeIntervalSince1970).max() else { return nil }
        let count = { (kind: ScoreEvent.Kind) in events.filter { $0.kind == kind }.count }
        points = events.reduce(0) { $0 + $1.points }
        hunts = count(.bonus)
        stops = count(.stop)
        badges = count(.badge)
        self.reached = reached
    }

    /// The totals of `events` in each hunt (a hunt's board's rows), by hunt id; none for a hunt
    /// without events.
    public static func byHunt(_ events: [ScoreEvent]) -> [String: ScoreTotals] {
        Dictionary(grouping: events, by: \.huntID).compactMapValues { ScoreTotals($0) }
    }
}
