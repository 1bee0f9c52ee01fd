import Foundation
import Testing
import VSHCore
import VSHEngine

/// Each rule as a unit of its own: its `check` on a context made for it, with the cases that turn it
/// each way, apart from the verifier around it (VerifierTests runs them together as scenarios).
@Suite struct RuleUnitTests {
    /// A context for `submission`, with the results of the rules before `rule` already run.
    func context(
        _ submission: Submission, facts: CheckInFacts = CheckInFacts(hunt: hunt), before rule: Rule
    ) -> VerificationContext {
        var context = VerificationContext(submission: submission, facts: facts, limits: Verifier())
        for unit in Verifier.standardRules {
            if unit.rule == rule { break }
            context.results.append(unit.check(&context))
        }
        return context
    }

    func outcome(
        _ unit: some VerificationRule, _ submission: Submission,
        facts: CheckInFacts = CheckInFacts(hunt: hunt)
    ) -> RuleResult {
        var context = context(submission, facts: facts, before: unit.rule)
        let result = unit.check(&context)
        #expect(result.rule == unit.rule)
        return result
    }

    @Test func theStandardRulesRunInTheDocumentedOrder() {
        #expect(Verifier.standardRules.map(\.rule) == Rule.allCases)
        #expect(Set(Rule.allCases).count == 14)
    }

    @Test func position() {
        var context = context(device(36.0805, -115.1725), before: .position)
        #expect(PositionRule().check(&context).outcome == .passed)
        #expect(context.position == Coordinate(unchecked: 36.0805, -115.1725))
        #expect(outcome(PositionRule(), device(0, 0)).outcome == .failed)
        #expect(outcome(PositionRule(), photo(PhotoMetadata())).outcome == .failed)
    }

    @Test func captureTime() {
        var context = context(device(36.0805, -115.1725, at: "2026-11-21T19:58:00Z"), before: .captureTime)
        #expect(CaptureTimeRule().check(&context).outcome == .passed)
        #expect(context.captured == RFC3339.parse("2026-11-21T19:58:00Z"))
        #expect(outcome(CaptureTimeRule(), photo(PhotoMetadata())).outcome == .failed)
    }

    @Test func accuracy() {
        #expect(outcome(AccuracyRule(), device(36.0805, -115.1725, accuracy: 5)).outcome == .passed)
        #expect(outcome(AccuracyRule(), device(36.0805, -115.1725, accuracy: 80)).outcome == .needsReview)
        #expect(outcome(AccuracyRule(), device(36.0805, -115.1725, accuracy: nil)).outcome == .failed)
    }

    @Test func notInFuture() {
        #expect(outcome(NotInFutureRule(), device(36.0805, -115.1725)).outcome == .passed)
        #expect(
            outcome(NotInFutureRule(), device(36.0805, -115.1725, at: "2026-11-21T20:10:00Z")).outcome
                == .failed)
        #expect(outcome(NotInFutureRule(), photo(PhotoMetadata())).outcome == .skipped)
    }

    @Test func photoAge() {
        #expect(outcome(PhotoAgeRule(), device(36.0805, -115.1725)).outcome == .passed)
        #expect(
            outcome(PhotoAgeRule(), device(36.0805, -115.1725, at: "2026-11-21T19:40:00Z")).outcome
                == .needsReview)
        #expect(
            outcome(PhotoAgeRule(), device(36.0805, -115.1725, at: "2026-11-19T19:40:00Z")).outcome == .failed
        )
    }

    @Test func huntWindow() {
        #expect(outcome(HuntWindowRule(), device(36.0805, -115.1725)).outcome == .skipped)
        var closed = hunt
        closed.endsAt = RFC3339.parse("2026-11-21T19:00:00Z")
        #expect(
            outcome(HuntWindowRule(), device(36.0805, -115.1725), facts: CheckInFacts(hunt: closed)).outcome
                == .failed)
        var open = hunt
        open.startsAt = RFC3339.parse("2026-11-21T10:00:00Z")
        #expect(
            outcome(HuntWindowRule(), device(36.0805, -115.1725), facts: CheckInFacts(hunt: open)).outcome
                == .passed)
    }

    @Test func clocksAgree() {
        #expect(outcome(ClocksAgreeRule(), device(36.0805, -115.1725)).outcome == .skipped)
    }

    @Test func atStop() {
        var context = context(
            device(36.0805, -115.1725), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]),
            before: .atStop)
        #expect(AtStopRule().check(&context).outcome == .passed)
        #expect(context.stop?.id == "a")
        #expect(outcome(AtStopRule(), device(36.0805, -115.1725)).outcome == .failed)
        #expect(outcome(AtStopRule(), device(0, 0)).outcome == .skipped)
    }

    @Test func uniquePhoto() {
        #expect(outcome(UniquePhotoRule(), device(36.0805, -115.1725)).outcome == .skipped)
        var photoHunt = hunt
        photoHunt.proof = .photo
        #expect(
            outcome(UniquePhotoRule(), device(36.0805, -115.1725), facts: CheckInFacts(hunt: photoHunt))
                .outcome == .failed)
    }

    @Test func travelSpeed() {
        #expect(outcome(TravelSpeedRule(), device(36.0805, -115.1725)).outcome == .skipped)
        let far = Fix(
            position: Coordinate(unchecked: 36.17, -115.14), time: RFC3339.parse("2026-11-21T19:58:00Z")!,
            accuracyMeters: 5, source: .device, huntID: "h")
        #expect(
            outcome(
                TravelSpeedRule(), device(36.0805, -115.1725),
                facts: CheckInFacts(hunt: hunt, neighbourFixes: [far])
            )
            .outcome == .failed)
    }

    @Test func stopOrder() {
        var ordered = hunt
        ordered.ordered = true
        let facts = CheckInFacts(hunt: ordered, coveringStops: [stopB])
        #expect(outcome(StopOrderRule(), device(36.0805, -115.1725), facts: facts).outcome == .failed)
        #expect(outcome(StopOrderRule(), device(36.0805, -115.1725)).outcome == .skipped)
    }

    @Test func firstVisit() {
        let facts = CheckInFacts(hunt: hunt, coveringStops: [stopA])
        var first = context(device(36.0805, -115.1725), facts: facts, before: .firstVisit)
        #expect(FirstVisitRule().check(&first).outcome == .passed)
        #expect(first.points == 50)
        var again = context(
            device(36.0805, -115.1725),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], visitedStops: ["a": now]),
            before: .firstVisit)
        #expect(FirstVisitRule().check(&again).outcome == .passed)
        #expect(again.points == 0)
    }

    /// A rule added as docs/design.md says: one type (here, in this file) and one line in the list.
    /// It runs in its place, its name is in the results, and its failure rejects.
    @Test func aNewRuleIsOneTypeAndOneLine() {
        var verifier = Verifier()
        verifier.rules.append(QuietHoursRule())
        let facts = CheckInFacts(hunt: hunt, coveringStops: [stopA])
        let decision = verifier.evaluate(device(36.0805, -115.1725, at: "2026-11-21T19:59:00Z"), facts: facts)
        #expect(decision.rules.map(\.rule) == Rule.allCases + [.quietHours])
        #expect(decision.rules.last?.outcome == .failed)
        #expect(decision.verdict == .rejected)
        #expect(Verifier().evaluate(device(36.0805, -115.1725), facts: facts).verdict == .accepted)
    }
}

extension Rule {
    /// A test-only rule's name.
    static let quietHours = Rule(rawValue: "quiet_hours")
}

/// A test-only rule: no check-ins between 11 am and noon in the hunt's time zone.
struct QuietHoursRule: VerificationRule {
    let rule = Rule.quietHours

    func check(_ context: inout VerificationContext) -> RuleResult {
        guard let captured = context.captured else { return RuleResult(rule, .skipped, "no capture time") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = context.zone
        return calendar.component(.hour, from: captured) == 11
            ? RuleResult(rule, .failed, "quiet hours") : RuleResult(rule, .passed, "not in the quiet hours")
    }
}
