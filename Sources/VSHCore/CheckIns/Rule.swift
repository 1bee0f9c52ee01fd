/// A verification rule's name, as results, the audit trail and the API write it (`capture_time`).
/// vsh's own rules are the static members below, listed in `allCases` in the order they run
/// (README, "Check-in rules"); a new rule names itself in its own file:
/// `extension Rule { static let quietHours = Rule(rawValue: "quiet_hours") }`.
public struct Rule: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name (`snake_case`).
    public let rawValue: String

    /// A rule's name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The name.
    public var description: String { rawValue }

    /// Where the submission places the player.
    public static let position = Rule(rawValue: "position")
    /// When the photo or the fix was taken.
    public static let captureTime = Rule(rawValue: "capture_time")
    /// How precise the fix is.
    public static let accuracy = Rule(rawValue: "accuracy")
    /// Not taken after it was received.
    public static let notInFuture = Rule(rawValue: "not_in_future")
    /// Fresh enough (and a late fix seen by a moderator).
    public static let photoAge = Rule(rawValue: "photo_age")
    /// Inside the hunt's window.
    public static let huntWindow = Rule(rawValue: "hunt_window")
    /// The submission's clocks agree.
    public static let clocksAgree = Rule(rawValue: "clocks_agree")
    /// At a stop.
    public static let atStop = Rule(rawValue: "at_stop")
    /// The stop's printed or rotating code.
    public static let code = Rule(rawValue: "code")
    /// The player's own photo.
    public static let uniquePhoto = Rule(rawValue: "unique_photo")
    /// A believable pace.
    public static let travelSpeed = Rule(rawValue: "travel_speed")
    /// In an ordered hunt's order.
    public static let stopOrder = Rule(rawValue: "stop_order")
    /// The first visit earns the points.
    public static let firstVisit = Rule(rawValue: "first_visit")
    /// The answer to the stop's question.
    public static let answer = Rule(rawValue: "answer")

    /// vsh's fourteen rules, in the order they run.
    public static let allCases: [Rule] = [
        .position, .captureTime, .accuracy, .notInFuture, .photoAge, .huntWindow, .clocksAgree, .atStop,
        .code,
        .uniquePhoto, .travelSpeed, .stopOrder, .firstVisit, .answer,
    ]
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

    /// `json(rules).compactText`, written straight to bytes: the text every check-in's row keeps,
    /// made in the writer's serial stage, where building the tree of 14 objects and walking it
    /// was 2.5 % of the server's CPU under device-fix check-ins.
    public static func compactText(_ rules: [RuleResult]) -> String {
        var out = JSONBytes()
        out.append("[")
        for (i, result) in rules.enumerated() {
            out.append(i == 0 ? "{\"rule\":" : ",{\"rule\":")
            JSONValue.writeString(result.rule.rawValue, to: &out)
            out.append(",\"result\":")
            JSONValue.writeString(result.outcome.rawValue, to: &out)
            out.append(",\"detail\":")
            JSONValue.writeString(result.detail, to: &out)
            out.append("}")
        }
        out.append("]")
        return out.text()
    }
}
