import Foundation
public import VSHCore

/// `hunt_window`: taken between the hunt's `starts_at` and `ends_at`, and received (by the server's
/// clock) before the end and its `late_grace_s` for phones that were offline, whatever the
/// capture time claims.
public struct HuntWindowRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.huntWindow

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard let captured = context.captured else { return RuleResult(rule, .skipped, "no capture time") }
        let hunt = context.hunt
        if let start = hunt.startsAt, captured < start {
            return RuleResult(rule, .failed, "taken before the hunt opened at \(RFC3339.format(start))")
        }
        if let end = hunt.endsAt, captured > end {
            return RuleResult(rule, .failed, "taken after the hunt closed at \(RFC3339.format(end))")
        }
        if let end = hunt.endsAt, context.now.timeIntervalSince(end) > hunt.lateGraceSeconds {
            let grace =
                hunt.lateGraceSeconds > 0 ? " and its \(RuleWords.duration(hunt.lateGraceSeconds)) grace" : ""
            return RuleResult(
                rule, .failed,
                "received at \(RFC3339.format(context.now)), after the hunt closed at \(RFC3339.format(end))\(grace)"
            )
        }
        if hunt.startsAt == nil && hunt.endsAt == nil {
            return RuleResult(rule, .skipped, "the hunt is always open")
        }
        return RuleResult(rule, .passed, "inside the hunt's window")
    }
}
