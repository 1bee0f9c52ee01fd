import Foundation
public import VSHCore

/// `photo_age`: a photo older than the hunt's `max_photo_age_s` at its receipt is refused. A device
/// fix that arrives later than `max_fix_age_s` after it was taken (a phone that was offline) is
/// late, not stale: a moderator sees the delay and decides, the rules never accept it unseen.
public struct PhotoAgeRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.photoAge

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard let captured = context.captured else { return RuleResult(rule, .skipped, "no capture time") }
        let hunt = context.hunt
        let age = context.now.timeIntervalSince(captured)
        if age > hunt.maxPhotoAgeSeconds {
            return RuleResult(
                rule, .failed,
                "taken \(RuleWords.duration(age)) before submission; the hunt accepts \(RuleWords.duration(hunt.maxPhotoAgeSeconds))"
            )
        }
        if let fixAge = context.deviceFixAge, fixAge > hunt.maxFixAgeSeconds {
            return RuleResult(
                rule, .needsReview,
                "the position was taken \(RuleWords.duration(fixAge)) before it was received; the hunt takes fixes up to \(RuleWords.duration(hunt.maxFixAgeSeconds)) old without review"
            )
        }
        return RuleResult(rule, .passed, "taken \(RuleWords.duration(max(0, age))) before submission")
    }
}
