/// The verification rules, in the order they run (README, "Check-in rules").
public enum Rule: String, CaseIterable, Sendable {
    case position
    case captureTime = "capture_time"
    case accuracy
    case notInFuture = "not_in_future"
    case photoAge = "photo_age"
    case huntWindow = "hunt_window"
    case clocksAgree = "clocks_agree"
    case atStop = "at_stop"
    case uniquePhoto = "unique_photo"
    case travelSpeed = "travel_speed"
    case stopOrder = "stop_order"
    case firstVisit = "first_visit"
}

/// What one rule said about one submission.
public struct RuleResult: Equatable, Sendable {
    /// What a rule concluded.
    public enum Outcome: String, Sendable {
        case passed, failed, skipped
        case needsReview = "needs_review"
    }

    /// The rule.
    public var rule: Rule
    /// What it concluded.
    public var outcome: Outcome
    /// Why, in words a player understands. Never a distance to the stop.
    public var detail: String

    /// A result from the rule, what it concluded and why.
    public init(_ rule: Rule, _ outcome: Outcome, _ detail: String) {
        self.rule = rule
        self.outcome = outcome
        self.detail = detail
    }
}

/// The decision on a submission.
public enum Verdict: String, Sendable {
    case accepted, rejected, pending

    /// Any failure rejects; else any rule asking for review makes it pending.
    public init(_ results: [RuleResult]) {
        if results.contains(where: { $0.outcome == .failed }) {
            self = .rejected
        } else if results.contains(where: { $0.outcome == .needsReview }) {
            self = .pending
        } else {
            self = .accepted
        }
    }

    /// 0 accepted, 1 rejected, 2 pending review.
    public var exitStatus: ExitStatus {
        switch self {
        case .accepted: return .success
        case .rejected: return .rejected
        case .pending: return .pendingReview
        }
    }
}

extension RuleResult {
    /// `[{rule, result, detail}]`: the shape `--json` prints, the API answers and the audit trail keeps.
    public static func json(_ rules: [RuleResult]) -> JSONValue {
        .array(
            rules.map {
                .object([
                    "rule": .string($0.rule.rawValue), "result": .string($0.outcome.rawValue),
                    "detail": .string($0.detail),
                ])
            })
    }
}
