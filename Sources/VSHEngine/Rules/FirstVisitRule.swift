import Foundation
public import VSHCore

/// `first_visit`: a stop's points come with the player's first visit; a visit again is recorded,
/// without points.
public struct FirstVisitRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.firstVisit

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard let stop = context.stop else { return RuleResult(rule, .skipped, "no stop") }
        if let first = context.facts.visitedStops[stop.id] {
            return RuleResult(
                rule, .passed, "already visited at \(RFC3339.format(first)): recorded, no points")
        }
        context.points = stop.points
        return RuleResult(rule, .passed, "first visit")
    }
}
