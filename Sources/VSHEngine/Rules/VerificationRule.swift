public import Foundation
public import VSHCore

/// One verification rule: its name and its decision on a submission. The verifier runs its rules
/// in a declared order (`Verifier.rules`), each reading the submission, the facts the store gathered
/// and what the rules before it found (the position, the capture time, the stop); adding a rule is
/// adding a type in a file of its own and a line in that list.
public protocol VerificationRule: Sendable {
    /// The rule's name in results, the audit trail and the API.
    var rule: Rule { get }

    /// The rule's result for the submission in `context`. A rule that cannot apply (no position, a
    /// device fix has no photo) says `skipped`, never a silent pass; it may record what it found
    /// for the rules after it.
    func check(_ context: inout VerificationContext) -> RuleResult
}

/// What the rules read, and what the rules before one found, passed along in the verifier's order.
public struct VerificationContext: Sendable {
    /// The submission being judged.
    public let submission: Submission
    /// What the store knew when the submission arrived (the hunt, the stops at the position, the
    /// player's history, the photo's earlier uses).
    public let facts: CheckInFacts
    /// The hunt the rules hold the submission to (an empty one when none: its defaults apply).
    public let hunt: Hunt
    /// The hunt's time zone, which makes a camera's local time absolute.
    public let zone: TimeZone
    /// When the submission was received (the server's clock, or a replay's own time).
    public let now: Date
    /// The verifier's limits (clock skew, clock agreement, the fastest possible travel).
    public let limits: Verifier

    /// Where the submission places the player (`position`); nil when nothing does.
    public var position: Coordinate?
    /// When the photo or the fix was taken (`capture_time`).
    public var captured: Date?
    /// The camera's clock made absolute, when the photo has one.
    public var cameraTime: Date?
    /// The satellites' time, when the photo has it.
    public var gpsTime: Date?
    /// The stop the player is at (`at_stop`).
    public var stop: Stop?
    /// The points a first visit earns (`first_visit`).
    public var points = 0
    /// Whether the answer to the stop's question was right (`answer`); nil when none was judged.
    public var answerRight: Bool?
    /// The tries at the stop's question left after this check-in's (`answer`).
    public var answerTriesLeft: Int?
    /// The points a right answer earns on top of the stop's (`answer`), the first time.
    public var answerPoints = 0
    /// The results of the rules run so far.
    public var results: [RuleResult] = []

    /// A context for judging `submission` with `facts` under `limits`.
    public init(submission: Submission, facts: CheckInFacts, limits: Verifier) {
        self.submission = submission
        self.facts = facts
        self.limits = limits
        hunt = facts.hunt ?? Hunt(id: "", name: "")
        zone = TimeZone(identifier: hunt.timeZone) ?? TimeZone(identifier: "UTC")!
        now = submission.receivedAt
    }

    /// The time of the position: the device's fix time, else the capture time.
    public var fixTime: Date? { submission.deviceTime ?? captured }
    /// How old the device's fix was when it arrived (a replay is received at its own time).
    public var deviceFixAge: Double? { submission.deviceTime.map { now.timeIntervalSince($0) } }
    /// The fix's accuracy radius in metres, when it states one.
    public var accuracy: Double? { submission.accuracyMeters }
}

/// Numbers and durations in the words of a rule's detail.
enum RuleWords {
    /// Kilometres an hour from metres a second, rounded; never a trap on a hostile value.
    static func kmh(_ metersPerSecond: Double) -> Int {
        let value = metersPerSecond * 3.6
        return value.isFinite && value < 1e15 ? Int(value.rounded()) : Int.max
    }

    /// A number as a person writes it: whole when whole, else to a tenth.
    static func format(_ value: Double) -> String {
        // Int(_:) traps beyond its range: a hostile accuracy (1e19 m) is shown, never a crash.
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        return value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }

    /// "45 s", "12 min", "3 h", "2 days".
    static func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<120: return "\(Int(seconds.rounded())) s"
        case ..<7200: return "\(Int((seconds / 60).rounded())) min"
        case ..<172_800: return "\(Int((seconds / 3600).rounded())) h"
        default: return "\(Int((seconds / 86_400).rounded())) days"
        }
    }
}
