import Foundation
public import VSHCore

/// `at_stop`: the position is inside a stop (boundary included; an unvisited one first when stops
/// overlap), or the fix's accuracy circle reaches the nearest stop within the hunt's `tolerance_m`.
/// A stop that asks for the phone's own position (`proof: ["fix"]`) is not reached by a photo's
/// EXIF GPS alone.
public struct AtStopRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.atStop

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard context.position != nil else { return RuleResult(rule, .skipped, "no position") }
        let facts = context.facts
        let result: RuleResult
        let wanted = context.submission.placedByCode ?? context.submission.stopID
        if let covering = facts.coveringStops.first(where: { $0.id == wanted })
            ?? facts.coveringStops.first(where: { facts.visitedStops[$0.id] == nil })
            ?? facts.coveringStops.first
        {
            context.stop = covering
            result = RuleResult(rule, .passed, "at \(covering.name)")
        } else if let nearest = facts.nearestStop, let accuracy = context.accuracy,
            nearest.distanceMeters <= min(accuracy, context.hunt.toleranceMeters)
        {
            context.stop = nearest.stop
            result = RuleResult(rule, .passed, "at \(nearest.stop.name) (within the fix's accuracy)")
        } else {
            let which = facts.hunt.map { "of \($0.name)" } ?? "of any hunt"
            return RuleResult(rule, .failed, "not at a stop \(which)")
        }
        if let stop = context.stop, stop.requires(.fix, in: context.facts.hunt),
            context.submission.deviceTime == nil
        {
            return RuleResult(
                rule, .failed,
                "\(stop.name) asks for your phone's position: a photo's own GPS does not count here")
        }
        return result
    }
}
