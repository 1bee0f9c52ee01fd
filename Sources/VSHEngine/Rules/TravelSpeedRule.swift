import Foundation
public import VSHCore
import VSHGeodesy

/// `travel_speed`: against the player's accepted and pending fixes just before and after in time,
/// by the times the fixes claim. Faster than `Hunt.impossibleSpeedKmh` is rejected; faster than the
/// hunt's own pace (`max_speed_kmh`, on foot by default) between two check-ins of this hunt goes to
/// review, as does finishing the whole hunt sooner than its `min_duration_s`. When both fixes
/// arrived within two minutes of being taken, the times the server received them are compared too
/// (too fast: review). A script can claim times spread over that window but sent 17 stops in 1.5 s;
/// an honest phone that lost its connection between two stops close together can send both at
/// once, so a moderator, not the rule, decides that case.
public struct TravelSpeedRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.travelSpeed

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        guard let position = context.position, let fixTime = context.fixTime else {
            return RuleResult(rule, .skipped, "no position or time")
        }
        let hunt = context.hunt
        let facts = context.facts
        let now = context.now
        let impossible = context.limits.maxSpeedMetersPerSecond
        let receiptWindow = min(hunt.maxFixAgeSeconds, Hunt.defaultMaxFixAgeSeconds)
        let fresh = { (fix: Fix) -> Bool in
            guard fix.source != .replay, let received = fix.receivedAt else { return false }
            return received.timeIntervalSince(fix.time) <= receiptWindow
        }
        let thisIsFresh =
            !context.submission.isReplay && now.timeIntervalSince(fixTime) <= receiptWindow
        let pace = min(hunt.maxSpeedKmh / 3.6, impossible)
        var fastest: (speed: Double, fix: Fix)?
        var tooFastForHunt: (speed: Double, fix: Fix)?
        var fastestByReceipt: (speed: Double, fix: Fix)?
        for other in facts.neighbourFixes {
            // Karney's beyond 0.1°, the local radii of curvature nearer (within 1e-6 of it): the
            // check-ins of one town compare without loading PROJ (7 ms, with curl and GnuTLS).
            let distance = Geodesic.shortDistanceMeters(position, other.position)
            let slack = (context.accuracy ?? 0) + (other.accuracyMeters ?? 0)
            let seconds = max(1, abs(fixTime.timeIntervalSince(other.time)))
            let speed = max(0, distance - slack) / seconds
            if speed > fastest?.speed ?? -1 { fastest = (speed, other) }
            // The hunt's pace binds between its own check-ins: a player may take a taxi from one
            // hunt's last stop to another hunt's first.
            let sameHunt = other.huntID != nil && other.huntID == facts.hunt?.id
            if sameHunt, speed > pace, speed > tooFastForHunt?.speed ?? -1 {
                tooFastForHunt = (speed, other)
            }
            if thisIsFresh, fresh(other), let received = other.receivedAt {
                let byReceipt = max(0, distance - slack) / max(1, abs(now.timeIntervalSince(received)))
                let limit = sameHunt ? pace : impossible
                if byReceipt > limit, byReceipt > fastestByReceipt?.speed ?? -1 {
                    fastestByReceipt = (byReceipt, other)
                }
            }
        }
        if let fastest, fastest.speed > impossible {
            return RuleResult(
                rule, .failed,
                "that would mean travelling at \(RuleWords.kmh(fastest.speed)) km/h since your check-in at \(RFC3339.format(fastest.fix.time))"
            )
        }
        if let slow = tooFastForHunt {
            return RuleResult(
                rule, .needsReview,
                "that would mean travelling at \(RuleWords.kmh(slow.speed)) km/h since your check-in at \(RFC3339.format(slow.fix.time)); this hunt expects at most \(RuleWords.format(hunt.maxSpeedKmh)) km/h"
            )
        }
        if let receipt = fastestByReceipt {
            return RuleResult(
                rule, .needsReview,
                "by the server's clock that would mean travelling at \(RuleWords.kmh(receipt.speed)) km/h since your check-in received at \(RFC3339.format(receipt.fix.receivedAt ?? receipt.fix.time))"
            )
        }
        if let finish = quickFinish(context, fixTime: fixTime) {
            return RuleResult(
                rule, .needsReview,
                "this would finish all \(hunt.stops.count) stops \(RuleWords.duration(finish)) after your first; this hunt takes at least \(RuleWords.duration(hunt.minDurationSeconds ?? 0))"
            )
        }
        if fastest != nil {
            return RuleResult(rule, .passed, "a plausible journey from your previous check-in")
        }
        return RuleResult(rule, .skipped, "no earlier check-in to compare with")
    }

    /// How long the whole hunt took, when this check-in at the context's stop would be the last of
    /// its stops to be visited and that is sooner than the hunt's `minDurationSeconds`; nil otherwise.
    private func quickFinish(_ context: VerificationContext, fixTime: Date) -> Double? {
        let facts = context.facts
        guard let hunt = facts.hunt, let minimum = hunt.minDurationSeconds, let stop = context.stop,
            facts.visitedStops[stop.id] == nil,
            hunt.stops.allSatisfy({ $0.id == stop.id || facts.visitedStops[$0.id] != nil })
        else { return nil }
        let times = Array(facts.visitedStops.values) + [fixTime]
        let span = times.max()!.timeIntervalSince(times.min()!)
        return span < minimum ? span : nil
    }
}
