import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

/// A retry key's answer is kept without the rules its check-in's row already holds, and given back
/// whole: to a retry, to the same key twice in one group, and in a copy of the league.
@Suite struct RetryAnswerTests {
    let folder: URL
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        folder = try TestSupport.temporaryDirectory("vsh-retry-answers")
    }

    /// Rules whose details are not all ASCII (a scalar of two, three and four bytes), so that the
    /// place the rules go back in is counted as SQLite's `substr` counts.
    static let rules = [
        RuleResult(.position, .passed, "GPS position present"),
        RuleResult(.accuracy, .passed, "±8 m"),
        RuleResult(.atStop, .failed, "not at Café “Zoë” 🦊 yet"),
    ]

    static let decide: CheckInDecider = { _, _ in
        Decision(verdict: .rejected, rules: rules, hunt: nil, stop: nil, points: 0, fix: nil)
    }

    /// An answer shaped as the service's: the rules' text inside it, with text before and after.
    static func answer(_ recorded: RecordedCheckIn) -> String {
        #"{"verdict":"rejected","id":\#(recorded.id),"player":"Zoë \"rules\": 🦊","rules":"#
            + RuleResult.json(recorded.decision.rules).compactText + #","awards":[],"note":"ß"}"#
    }

    /// The `answer` column as stored, by key.
    func keptColumns(_ path: String) async throws -> [String: String] {
        try await DatabaseQueue(path: path).read { db in
            var kept: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, answer FROM idempotency_keys") {
                kept[row[0]] = row[1]
            }
            return kept
        }
    }

    @Test func anAnswerIsKeptWithoutItsRulesAndGivenBackWhole() async throws {
        let path = folder.appendingPathComponent("origin.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        let zoe = try await store.addPlayer(name: "Zoë", email: nil, at: t0).id
        let keyed = { (key: String) in keyedCheckIn(zoe, key, at: self.t0) { Self.answer($0) } }
        let plain = keyedCheckIn(zoe, "plain", at: t0) { "plain #\($0.id)" }
        let outcomes = try await store.recordGroup(
            [keyed("k1"), keyed("k2"), keyed("k1"), plain], decide: Self.decide)
        var given: [String: String] = [:]
        for (key, outcome) in zip(["k1", "k2"], outcomes) {
            guard case .recorded(_, let answer?) = outcome else {
                Issue.record("\(key): \(outcome)")
                return
            }
            given[key] = answer
        }
        let rulesText = RuleResult.json(Self.rules).compactText
        #expect(given["k1"]?.contains(rulesText) == true)
        // The same key twice in one group: the first answer, whole.
        guard case .repeated(let twice) = outcomes[2] else {
            Issue.record("expected a repeat: \(outcomes[2])")
            return
        }
        #expect(twice.answer == given["k1"])

        // Stored without the rules; an answer that does not hold them is stored as it is.
        let columns = try await keptColumns(path)
        for key in ["k1", "k2"] {
            let column = try #require(columns[key])
            #expect(!column.contains(rulesText), "\(key): \(column)")
            #expect(column.utf8.count + rulesText.utf8.count == given[key]?.utf8.count)
        }
        #expect(columns["plain"]?.hasPrefix("plain #") == true)

        // A retry gets each answer back byte for byte, from this store and from a reopened one.
        for opened in [store, try SpatiaLiteStore(path: path)] {
            for key in ["k1", "k2"] {
                let found = try await opened.idempotentAnswer(player: zoe, key: key)
                #expect(found?.answer == given[key], "\(key)")
                #expect(found?.fingerprint == "fp-\(key)")
            }
            #expect(
                try await opened.idempotentAnswer(player: zoe, key: "plain")?.answer.hasPrefix("plain #")
                    == true)
        }
        let retried = try await store.recordGroup([keyed("k2")], decide: Self.decide)
        guard case .repeated(let earlier) = retried[0] else {
            Issue.record("expected a repeat: \(retried)")
            return
        }
        #expect(earlier.answer == given["k2"])

        // A copy of the league holds each answer whole.
        let copyPath = folder.appendingPathComponent("copy.sqlite").path
        let copy = try SpatiaLiteStore(path: copyPath)
        _ = try await copy.load(from: store, pageSize: 2)
        let copied = try await copy.copiedRows(
            of: try #require(CopiedTable.all.first { $0.name == "idempotency_keys" }), offset: 0, limit: 10)
        #expect(copied.count == 3)
        for key in ["k1", "k2"] {
            #expect(try await copy.idempotentAnswer(player: zoe, key: key)?.answer == given[key], "\(key)")
            #expect(try await keptColumns(copyPath)[key] == given[key])
        }
    }

    @Test func theRulesAreFoundOnlyAfterTheAnswersOwnKey() {
        func find(_ text: String, _ rules: String) -> [Int]? {
            var text = text
            var rules = rules
            return text.withUTF8 { text in
                rules.withUTF8 { rules in RulesInAnswer.find(rules, in: text).map { [$0.at, $0.scalars] } }
            }
        }
        // Bytes and scalars before the rules: "é" is two bytes, one scalar.
        #expect(find(#"{"é":1,"rules":[1]}"#, "[1]") == [16, 15])
        // The rules' text elsewhere, or another value after the key: not found.
        #expect(find(#"{"a":[1],"rules":[2]}"#, "[1]") == nil)
        #expect(find(#"{"rules":[1"#, "[1]") == nil)
        #expect(find(#"{"a":"[1]"}"#, "[1]") == nil)
    }
}
