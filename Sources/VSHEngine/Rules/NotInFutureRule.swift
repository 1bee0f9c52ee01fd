import Foundation
public import VSHCore

/// `not_in_future`: a capture time later than its receipt (beyond `Verifier.futureSkewSeconds` of
/// clock skew) is refused.
public struct NotInFutureRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.notInFuture

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard let captured = context.captured else { return RuleResult(rule, .skipped, "no capture time") }
        if captured.timeIntervalSince(context.now) > context.limits.futureSkewSeconds {
            return RuleResult(
                rule, .failed,
                "taken at \(RFC3339.format(captured)), after the submission at \(RFC3339.format(context.now))"
            )
        }
        return RuleResult(rule, .passed, "not in the future")
    }
}
