import Foundation
import Testing
import VSHCore
import VSHEngine

/// A check-in's answer written with the rules' text its store made is the answer written whole.
@Suite struct CheckInJSONTests {
    static let rules = [
        RuleResult(.position, .passed, "GPS position present"),
        RuleResult(.accuracy, .passed, "±8 m"),
        RuleResult(.atStop, .failed, "not at Café “Zoë” \u{202E}🦊 yet"),
        RuleResult(.answer, .skipped, "say \"hi\"\n"),
    ]

    static func recorded(answerRight: Bool?) -> RecordedCheckIn {
        var decision = Decision(
            verdict: .accepted, rules: rules, hunt: nil, stop: nil, points: 25,
            fix: Fix(
                position: Coordinate(unchecked: 36.1, -115.1),
                time: Date(timeIntervalSince1970: 1_800_000_000),
                accuracyMeters: 8, source: .device))
        decision.answerRight = answerRight
        return RecordedCheckIn(
            id: 42, playerID: PlayerID(7), player: "Zoë \"rules\":",
            receivedAt: Date(timeIntervalSince1970: 1_800_000_060),
            source: .device, decision: decision, state: .accepted, photoFile: nil,
            awards: [
                ScoreEvent(
                    kind: .badge, huntID: "strip", badgeID: "first", points: 5,
                    at: Date(timeIntervalSince1970: 1_800_000_000),
                    checkInID: 42)
            ])
    }

    /// The rules' text a store keeps, written straight to bytes, is the rules' tree written: for
    /// no rules, the rules above, and 2,000 random lists of rules named and detailed with
    /// characters that must be escaped and characters that must not.
    @Test func theRulesWrittenStraightAreTheTreeWritten() throws {
        #expect(RuleResult.compactText([]) == "[]")
        #expect(RuleResult.compactText(Self.rules) == RuleResult.json(Self.rules).compactText)
        let pieces = [
            "", "a", "±8 m", "\"", "\\", "\n", "\t", "\u{01}", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}",
            "\u{061C}", "\u{200E}", "\u{2028}", "\u{2029}", "\u{202E}", "\u{2066}", "\u{2069}", "é", "“Zoë”",
            "🦊", "km/h", "{\"rule\":", "]",
        ]
        let outcomes: [RuleResult.Outcome] = [.passed, .failed, .skipped, .needsReview]
        var random = SystemRandomNumberGenerator()
        func text() -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
        }
        var escaped = 0
        for _ in 0..<2_000 {
            let rules = (0..<Int.random(in: 0...16, using: &random)).map { _ in
                RuleResult(
                    Rule(rawValue: text()), outcomes.randomElement(using: &random)!, text())
            }
            let written = RuleResult.compactText(rules)
            #expect(written == RuleResult.json(rules).compactText)
            #expect(try JSONValue.parse(written) == RuleResult.json(rules))
            if written.contains("\\u") { escaped += 1 }
        }
        #expect(escaped > 100)
    }

    @Test(arguments: [nil, true, false]) func theAnswerWithTheStoresRulesIsTheWholeAnswer(_ right: Bool?)
        throws
    {
        var recorded = Self.recorded(answerRight: right)
        let whole = CheckInJSON.checkIn(recorded).compactText
        #expect(CheckInJSON.text(recorded) == whole)
        recorded.rulesText = RuleResult.json(Self.rules).compactText
        #expect(CheckInJSON.text(recorded) == whole)
        // The text given is what is written: the rules are not written again from the decision.
        recorded.rulesText = "[]"
        guard case .object(let answer) = try JSONValue.parse(CheckInJSON.text(recorded)) else {
            Issue.record("not an object")
            return
        }
        #expect(answer["rules"] == .array([]))
    }
}
