import Foundation
public import VSHCore

/// `clocks_agree`: every clock the submission has (the photo's GPS time, its camera clock, the
/// device's fix time) within `Verifier.clockAgreementSeconds` of the others; else a moderator looks.
public struct ClocksAgreeRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.clocksAgree

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let clocks = [
            ("GPS", context.gpsTime), ("camera", context.cameraTime),
            ("device", context.submission.deviceTime),
        ]
        .compactMap { name, time in time.map { (name, $0) } }
        guard clocks.count >= 2 else {
            return RuleResult(
                rule, .skipped,
                context.submission.photo == nil
                    ? "a device fix has one clock" : "the photo has only one clock")
        }
        let times = clocks.map(\.1)
        let gap = times.max()!.timeIntervalSince(times.min()!)
        let names = clocks.map(\.0)
        let which =
            names.count == 2
            ? "\(names[0]) and \(names[1])"
            : "\(names.dropLast().joined(separator: ", ")) and \(names.last!)"
        if gap <= context.limits.clockAgreementSeconds {
            return RuleResult(rule, .passed, "\(which) clocks agree within \(RuleWords.duration(gap))")
        }
        return RuleResult(rule, .needsReview, "\(which) clocks differ by \(RuleWords.duration(gap))")
    }
}
