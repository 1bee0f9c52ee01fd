public import Foundation

/// What the database knows that bears on a submission, gathered inside the
/// transaction that will record it, so that the facts cannot change between
/// the decision and the write (two simultaneous submissions of one photo
/// see each other).
public struct CheckInFacts: Sendable {
    /// The hunt whose rules apply: the one named, else the hunt of the stop
    /// the position points at (covering, else nearest). Nil when there is none.
    public var hunt: Hunt?
    /// Stops of that hunt (or of every hunt when none was named) covering the position, boundary included.
    public var coveringStops: [Stop]
    /// The nearest stop of that hunt when none covers, with the geodesic distance to its boundary.
    public var nearestStop: (stop: Stop, distanceMeters: Double)?
    /// Stops of `hunt` the player already has an accepted check-in at, with its fix time.
    public var visitedStops: [String: Date]
    /// The player's accepted check-ins nearest in fix time before and after this fix (any hunt).
    public var neighbourFixes: [Fix]
    /// An earlier submission (anyone's) of the same image data, if any.
    public var earlierUseOfPhoto: Int64?

    /// The facts for a decision (see each property).
    public init(
        hunt: Hunt?, coveringStops: [Stop] = [], nearestStop: (stop: Stop, distanceMeters: Double)? = nil,
        visitedStops: [String: Date] = [:], neighbourFixes: [Fix] = [], earlierUseOfPhoto: Int64? = nil
    ) {
        self.hunt = hunt
        self.coveringStops = coveringStops
        self.nearestStop = nearestStop
        self.visitedStops = visitedStops
        self.neighbourFixes = neighbourFixes
        self.earlierUseOfPhoto = earlierUseOfPhoto
    }
}

/// The verifier's decision: the verdict, every rule's result, the stop and the points.
public struct Decision: Sendable {
    /// The decision: accepted, rejected or pending.
    public var verdict: Verdict
    /// Every rule's result, in the order the rules ran.
    public var rules: [RuleResult]
    /// The hunt whose rules applied, if any.
    public var hunt: Hunt?
    /// The stop the check-in is at, if any.
    public var stop: Stop?
    /// Points this check-in earns now: the stop's points on a first accepted
    /// visit, else 0 (scoring derives totals from accepted check-ins).
    public var points: Int
    /// The fix the decision used (nil when the submission had no usable position and time).
    public var fix: Fix?

    /// A decision from its parts (see each property).
    public init(verdict: Verdict, rules: [RuleResult], hunt: Hunt?, stop: Stop?, points: Int, fix: Fix?) {
        self.verdict = verdict
        self.rules = rules
        self.hunt = hunt
        self.stop = stop
        self.points = points
        self.fix = fix
    }
}
