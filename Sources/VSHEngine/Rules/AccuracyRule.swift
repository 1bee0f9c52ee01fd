import Foundation
public import VSHCore

/// `accuracy`: a fix less precise than the hunt's `max_accuracy_m` goes to a moderator. A phone
/// always knows how sure it is, so a device fix without an accuracy (one typed in) is refused.
public struct AccuracyRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.accuracy

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let limit = context.hunt.maxAccuracyMeters
        if let accuracy = context.accuracy {
            if accuracy <= limit {
                return RuleResult(rule, .passed, "±\(RuleWords.format(accuracy)) m")
            }
            return RuleResult(
                rule, .needsReview,
                "±\(RuleWords.format(accuracy)) m is worse than the hunt's \(RuleWords.format(limit)) m")
        }
        if context.submission.deviceTime != nil, !context.submission.isReplay {
            return RuleResult(rule, .failed, "the device fix does not state its accuracy (accuracy_m)")
        }
        return RuleResult(rule, .skipped, "the fix does not state its accuracy")
    }
}
