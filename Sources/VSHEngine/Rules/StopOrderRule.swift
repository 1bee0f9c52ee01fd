import Foundation
public import VSHCore

/// `stop_order`: in an ordered hunt, a stop counts only after every stop before it in the file.
public struct StopOrderRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.stopOrder

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let facts = context.facts
        guard let stop = context.stop, let hunt = facts.hunt, hunt.ordered else {
            return RuleResult(
                rule, .skipped, facts.hunt?.ordered == true ? "no stop" : "the hunt is not ordered")
        }
        let index = hunt.stops.firstIndex { $0.id == stop.id } ?? 0
        let missing = hunt.stops[..<index].filter { facts.visitedStops[$0.id] == nil }
        if let next = missing.first, facts.visitedStops[stop.id] == nil {
            return RuleResult(rule, .failed, "this hunt goes in order: \(next.name) comes first")
        }
        return RuleResult(rule, .passed, "in order")
    }
}
