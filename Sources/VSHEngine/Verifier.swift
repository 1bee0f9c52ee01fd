import Foundation
public import VSHCore
import VSHGeodesy

/// Decides whether a submission shows the player at a stop. Pure: everything
/// it needs is in the submission and the facts, so the rules can be tested
/// without a database, and the store runs it inside the recording transaction.
///
/// The rules are units of their own (`VerificationRule`, one file each in `Rules/`), run in the
/// order of `rules`; a rule that cannot apply (no position, a device fix has no photo) is
/// `skipped`, never silently passed. Any failure rejects the submission; else any rule asking for
/// review makes it pending.
public struct Verifier: Sendable {
    /// Clock skew allowed before a capture time counts as "in the future", seconds.
    public var futureSkewSeconds: Double = 120
    /// GPS time and the camera clock must agree this closely, seconds.
    public var clockAgreementSeconds: Double = 300
    /// The fastest anyone can travel between check-ins, m/s (`Hunt.impossibleSpeedKmh`, 200 km/h:
    /// faster than any taxi on the Strip, slower than a plane): faster is rejected in every hunt.
    /// Each hunt's own pace (`Hunt.maxSpeedKmh`) sends slower but still too fast journeys to review.
    public var maxSpeedMetersPerSecond: Double = Hunt.impossibleSpeedKmh / 3.6
    /// A photo's own GPS and the device fix sent with it may be this far apart beyond their two
    /// accuracy radii, metres (a player walks a little between the shot and the fix).
    public var photoFixAgreementMeters: Double = 100

    /// The rules, in the order they run and players read them.
    public var rules: [any VerificationRule] = Verifier.standardRules

    /// vsh's fourteen rules, in their order (README, "Check-in rules").
    public static let standardRules: [any VerificationRule] = [
        PositionRule(), CaptureTimeRule(), AccuracyRule(), NotInFutureRule(), PhotoAgeRule(),
        HuntWindowRule(),
        ClocksAgreeRule(), AtStopRule(), CodeRule(), UniquePhotoRule(), TravelSpeedRule(), StopOrderRule(),
        FirstVisitRule(), AnswerRule(),
    ]

    /// The standard verifier.
    public init() {}

    /// The decision on `submission`, given what the store knew (`facts`): each rule's result in
    /// order, the verdict, the stop, the points (a first visit's, when accepted) and the fix.
    public func evaluate(_ submission: Submission, facts: CheckInFacts) -> Decision {
        var context = VerificationContext(submission: submission, facts: facts, limits: self)
        for unit in rules {
            let result = unit.check(&context)
            context.results.append(result)
        }
        let verdict = Verdict(context.results)
        let stop = context.stop
        let fix = context.position.flatMap { p in
            context.fixTime.map {
                Fix(
                    position: p, time: $0, accuracyMeters: context.accuracy, source: submission.source,
                    huntID: stop?.huntID)
            }
        }
        var decision = Decision(
            verdict: verdict, rules: context.results, hunt: facts.hunt, stop: stop,
            points: verdict == .accepted ? context.points + context.answerPoints : 0, fix: fix)
        decision.answerRight = context.answerRight
        decision.answerTriesLeft = context.answerTriesLeft
        return decision
    }
}
