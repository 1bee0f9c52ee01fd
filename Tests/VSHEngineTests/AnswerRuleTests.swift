import Foundation
import Testing
import VSHCore
import VSHEngine

/// Questions at a stop: how answers are compared (`StopQuestion`), the `answer` rule on in-memory
/// facts (right, wrong, tries used up, required or not), and the answer's points in the score
/// ledger.
@Suite struct AnswerRuleTests {
    static var fountains: Stop {
        var stop = Stop(id: "fountains", huntID: "h", name: "Bellagio Fountains", points: 30, geofence: plaza)
        stop.question = StopQuestion(
            text: "Which hotel's fountains are these?", answers: [.text("Bellagio")], points: 20)
        return stop
    }
    static var hunt: Hunt { Hunt(id: "h", name: "Strip", stops: [fountains]) }

    func decide(
        _ answer: String?, tries: AnswerTries? = nil, required: Bool = false,
        at point: (Double, Double) = (36.0805, -115.1725)
    ) -> Decision {
        var stop = Self.fountains
        if required { stop.proof = [.answer] }
        let hunt = Hunt(id: "h", name: "Strip", stops: [stop])
        var submission = device(point.0, point.1)
        submission.answer = answer
        let inside = (36.0800...36.0810).contains(point.0)
        var facts = CheckInFacts(
            hunt: hunt, coveringStops: inside ? [stop] : [], nearestStop: inside ? nil : (stop, 5_000))
        if let tries { facts.answerTries = ["fountains": tries] }
        return Verifier().evaluate(submission, facts: facts)
    }

    @Test func textAnswersAreFoldedForCaseAccentsSpacesAndPunctuation() {
        let question = Self.fountains.question!
        for typed in ["Bellagio", "bellagio ", "BELLAGÍO", " Bel-lagio!", "ｂｅｌｌａｇｉｏ"] {
            #expect(question.accepts(typed), "\(typed)")
        }
        for typed in ["Belagio", "Caesars", "", "!!!", String(repeating: "b", count: 400)] {
            #expect(!question.accepts(typed), "\(typed)")
        }
        #expect(StopQuestion.fold("Crème Brûlée, s'il vous plaît") == "cremebruleesilvousplait")
    }

    @Test func numbersAreComparedWithinTheirTolerance() {
        let year = StopQuestion(text: "When did it open?", answers: [.number(1998, tolerance: 1)])
        for typed in ["1998", "1,998", " 1997 ", "1999", "1998.0", "1998,5"] {
            #expect(year.accepts(typed), "\(typed)")
        }
        for typed in ["1996", "2000", "nineteen", "1998 AD", "19 98x"] {
            #expect(!year.accepts(typed), "\(typed)")
        }
        let exact = StopQuestion(text: "How many jets?", answers: [.number(1214, tolerance: 0)])
        #expect(exact.accepts("1214") && exact.accepts("1.214,0") == false && !exact.accepts("1215"))
        #expect(StopQuestion.number("3,5") == 3.5 && StopQuestion.number("1,234,567") == 1_234_567)
        #expect(StopQuestion.number("1,2,3") == nil && StopQuestion.number("") == nil)
    }

    @Test func aChoiceMustBeOneOfTheChoicesAndAmongTheAnswers() {
        let pick = StopQuestion(
            text: "Which show plays here?", choices: ["O", "Mystère", "KÀ"], answers: [.text("O")])
        #expect(pick.accepts("o") && !pick.accepts("mystere") && !pick.accepts("Zero"))
    }

    @Test func aRightAnswerEarnsItsPointsOnTopOfTheStops() {
        let decision = decide("bellagio ")
        #expect(decision.verdict == .accepted)
        #expect(decision.points == 50 && decision.answerRight == true)
        #expect(decision.rules.last?.rule == .answer)
        #expect(decision.rules.last?.detail == "right answer: +20 points")
        // Already answered right: no second helping.
        let again = decide("Bellagio", tries: AnswerTries(right: true))
        #expect(again.points == 30 && again.answerRight == nil)
    }

    @Test func aWrongAnswerCostsATryAndTheFourthIsRefused() {
        let first = decide("Caesars")
        #expect(first.verdict == .accepted && first.points == 30 && first.answerRight == false)
        #expect(first.rules.last?.detail == "not the answer (2 tries left); the stop still counts")
        let third = decide("Wynn", tries: AnswerTries(wrong: 2))
        #expect(third.rules.last?.detail.hasPrefix("not the answer (no tries left)") == true)
        // The fourth, even right, is not judged.
        let fourth = decide("Bellagio", tries: AnswerTries(wrong: 3))
        #expect(fourth.answerRight == nil && fourth.points == 30)
        #expect(fourth.rules.last?.detail == "no tries left: 3 wrong answers of 3 allowed")
        // Where the stop asks for the answer, the check-in is refused with it.
        let required = decide("Bellagio", tries: AnswerTries(wrong: 3), required: true)
        #expect(required.verdict == .rejected && result(required, .answer) == .failed)
    }

    @Test func aRequiredAnswerRejectsACheckInWithoutIt() {
        #expect(decide(nil, required: true).verdict == .rejected)
        #expect(decide("Wynn", required: true).verdict == .rejected)
        #expect(decide("BELLAGÍO", required: true).verdict == .accepted)
        let none = decide(nil)
        #expect(none.verdict == .accepted && none.answerRight == nil)
        #expect(none.rules.last?.detail == "no answer to Bellagio Fountains's question (20 points to win)")
    }

    @Test func noTryIsSpentWhenTheCheckInIsRefusedForAnotherReason() {
        // Five kilometres away: at_stop fails, the answer is not judged (so it cannot be guessed from home).
        let away = decide("Caesars", at: (36.13, -115.17))
        #expect(away.verdict == .rejected && away.answerRight == nil)
        #expect(result(away, .answer) == .skipped)
    }

    @Test func theLedgerAddsTheAnswersPointsOnceForTheFirstRightAnswer() {
        var hunt = ScoringHunt(Self.hunt)
        #expect(hunt.answerPoints == ["fountains": 20])
        let t = now
        let checkIns = [
            ScoredCheckIn(id: 1, huntID: "h", stopID: "fountains", time: t),
            ScoredCheckIn(id: 2, huntID: "h", stopID: "fountains", time: t + 60, answered: true),
            ScoredCheckIn(id: 3, huntID: "h", stopID: "fountains", time: t + 120, answered: true),
        ]
        let events = Scoring.events(for: checkIns, hunts: [hunt], badges: [])
        #expect(events.map(\.kind) == [.stop, .bonus, .answer])
        #expect(events.filter { $0.kind == .answer }.map(\.checkInID) == [2])
        #expect(ScoreTotals(events)?.points == 50 && ScoreTotals(events)?.stops == 1)
        // Going on from stored events gives the same as scoring everything.
        let first = Scoring.events(for: Array(checkIns.prefix(1)), hunts: [hunt], badges: [])
        let next = Scoring.eventsAfter(first, adding: checkIns[1], hunts: [hunt], badges: [])
        #expect(next == events.filter { $0.checkInID == 2 })
        let last = Scoring.eventsAfter(first + next!, adding: checkIns[2], hunts: [hunt], badges: [])
        #expect(last == [])
        hunt.answerPoints = [:]
        #expect(Scoring.events(for: checkIns, hunts: [hunt], badges: []).map(\.kind) == [.stop, .bonus])
    }
}
