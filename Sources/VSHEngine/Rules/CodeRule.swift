import Foundation
public import VSHCore

/// `code`: the stop's printed code, or its screen's rotating code (RFC 6238: the current or the
/// previous 30-s step), when the stop asks for one (`proof: ["code"]`), when the code stands in for
/// a position the GPS could not give, or when the player brings one. A code of another stop, a
/// wrong one or a screen's code older than a minute fails; a stop without codes skips it.
public struct CodeRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.code

    /// Rotating codes accepted: the current step and the previous one.
    public static let acceptedSteps = 2

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let submission = context.submission
        guard let stop = context.stop else {
            if submission.placedByCode != nil {
                return RuleResult(rule, .failed, "the code places you at no stop")
            }
            return RuleResult(rule, .skipped, "no stop")
        }
        if submission.codeChecked {
            return RuleResult(rule, .passed, "the code of \(stop.name) was right when the check-in arrived")
        }
        let standsIn = submission.placedByCode == stop.id
        if let placed = submission.placedByCode, !standsIn {
            return RuleResult(rule, .failed, "the code is for another stop than \(stop.name) (\(placed))")
        }
        let asked = stop.requires(.code, in: context.facts.hunt) || standsIn
        guard let typed = submission.code, !typed.isEmpty else {
            return asked
                ? RuleResult(
                    rule, .failed, "\(stop.name) asks for its code: scan the QR code at the stop or type it")
                : RuleResult(rule, .skipped, "no code asked here")
        }
        guard stop.hasCode else { return RuleResult(rule, .skipped, "\(stop.name) has no code") }
        let placed = standsIn ? "; it places you at \(stop.name) where GPS could not" : ""
        if let code = stop.code, StopCode.matches(typed, code) {
            return RuleResult(rule, .passed, "the code printed at \(stop.name)\(placed)")
        }
        if let secret = stop.rotatingCode?.secret,
            let age = TOTP.age(of: typed, secret: secret, at: context.now)
        {
            if age < Self.acceptedSteps {
                let which = age == 0 ? "the current code" : "the previous code"
                return RuleResult(rule, .passed, "\(which) on \(stop.name)'s screen\(placed)")
            }
            return RuleResult(
                rule, .failed,
                "that code from \(stop.name)'s screen is \(RuleWords.duration(Double(age) * TOTP.step)) old; a code lasts a minute: scan the screen again"
            )
        }
        return RuleResult(rule, .failed, "that is not the code of \(stop.name)")
    }
}
