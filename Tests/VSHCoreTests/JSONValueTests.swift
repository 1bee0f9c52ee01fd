import Foundation
import Testing
import VSHCore

@Suite struct JSONValueTests {
    @Test func parsesNestedValuesKeepingMemberOrder() throws {
        let value = try JSONValue.parse(#"{"b": 1, "a": [true, null, "x\n\u00e9\ud83d\ude00"], "c": -2.5e1}"#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == .number(1, isInteger: true))
        #expect(object["a"] == .array([.bool(true), .null, .string("x\né😀")]))
        #expect(object["c"] == .number(-25, isInteger: false))
    }

    @Test func reportsLineAndColumnOfSyntaxErrors() {
        #expect(throws: JSONSyntaxError(line: 3, column: 10, message: "expected ',' or '}'")) {
            try JSONValue.parse("{\n  \"a\": 1,\n  \"b\": 2 \"c\": 3}")
        }
        #expect(throws: JSONSyntaxError(line: 1, column: 1, message: "the file is empty")) {
            try JSONValue.parse("")
        }
        #expect(
            throws: JSONSyntaxError(line: 1, column: 6, message: "unexpected end of file (unclosed array)")
        ) {
            try JSONValue.parse("[1, 2")
        }
    }

    @Test func refusesDuplicateKeysLeadingZerosAndTrailingText() {
        #expect(throws: JSONSyntaxError(line: 1, column: 10, message: "duplicate key \"a\"")) {
            try JSONValue.parse(#"{"a": 1, "a": 2}"#)
        }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse("01") }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse("[1] x") }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(#""\ud800""#) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse("1e999") }
    }

    @Test func refusesNestingBeyondTheLimit() {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Array(deep.utf8), maxDepth: 256) }
        #expect((try? JSONValue.parse(Array(deep.utf8), maxDepth: 400)) != nil)
    }

    @Test func skipsAByteOrderMark() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.int(1)]))
    }

    @Test func writesCompactAndPrettyTextThatReadsBack() throws {
        let value = JSONValue.object([
            "name": .string("Caf\u{e9} \"Neon\"\n"), "points": .int(50), "ratio": .double(0.1),
            "ring": .array([.array([.double(-115.1729116), .double(36.0809325)])]), "none": .null,
        ])
        #expect(
            value.compactText
                == #"{"name":"Café \"Neon\"\n","points":50,"ratio":0.1,"ring":[[-115.1729116,36.0809325]],"none":null}"#
        )
        #expect(try JSONValue.parse(value.compactText) == value)
        #expect(value.prettyText.contains("\n    [-115.1729116, 36.0809325]\n"))
        #expect(try JSONValue.parse(value.prettyText) == value)
    }

    /// Strings that need no escape are written whole; the others escape exactly what JSON and
    /// JavaScript require, and every one reads back.
    @Test func escapesWhatMustBeEscapedAndNothingElse() throws {
        let cases: [(String, String)] = [
            ("plain ASCII", #""plain ASCII""#),
            ("Zoë · شارع · 🎰", "\"Zoë · شارع · 🎰\""),
            ("say \"hi\"", #""say \"hi\"""#),
            ("back\\slash", #""back\\slash""#),
            ("line\nbreak\ttab\r", #""line\nbreak\ttab\r""#),
            ("bell\u{07}del\u{7F}", #""bell\u0007del\u007f""#),
            ("sep\u{2028}par\u{2029}", #""sep\u2028par\u2029""#),
            ("€ starts with E2 too", "\"€ starts with E2 too\""),
        ]
        for (value, text) in cases {
            #expect(JSONValue.string(value).compactText == text)
            #expect(try JSONValue.parse(text) == .string(value))
        }
    }

    /// Each scalar beyond ASCII is written as it is or escaped as `\\u`, exactly as the rule says:
    /// the C1 controls, U+2028, U+2029 and the text-direction controls are escaped, every other one
    /// (the "±" of a rule's detail, "€", "→") is written whole, alone or among other text.
    @Test func everyScalarIsEscapedExactlyWhenItMust() {
        var checked = 0
        for value in Array(0x80...0xFFFF) + Array(stride(from: 0x10000, through: 0x10FFFF, by: 97)) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let mustEscape =
                (0x80...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                || scalar.properties.isBidiControl
            let text = JSONValue.string("±\(scalar)x").compactText
            #expect(text.contains("\\u") == mustEscape, "U+\(String(value, radix: 16))")
            checked += 1
        }
        #expect(checked > 60_000)
    }

    /// An object's member written from text made before is the same as the value written.
    @Test func aMemberWrittenFromItsTextIsTheSame() throws {
        let rules = JSONValue.array([
            .object(["rule": .string("accuracy"), "detail": .string("±8 m")]),
            .object(["rule": .string("at_stop"), "detail": .string("at Café \u{202E}“Zoë”")]),
        ])
        let whole = JSONValue.object(["id": .int(7), "rules": rules, "after": .string("ß")])
        #expect(whole.compactText(member: "rules", asText: rules.compactText) == whole.compactText)
        // The value in the object is not written: the text is.
        let shape = JSONValue.object(["id": .int(7), "rules": .null, "after": .string("ß")])
        #expect(shape.compactText(member: "rules", asText: rules.compactText) == whole.compactText)
        #expect(JSONValue.array([.int(1)]).compactText(member: "rules", asText: "x") == "[1]")
    }

    /// Random trees of every kind of value (whole numbers of every size and sign, fractions,
    /// strings of any scalars) are written as JSON that Foundation's own reader reads back to the
    /// same values, compact and pretty, and that this reader reads back too.
    @Test func randomValuesReadBackThroughFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let scalars: [Unicode.Scalar] = [
            "a", "Z", " ", "\"", "\\", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}",
            "é",
            "\u{61C}", "\u{200E}", "\u{2028}", "\u{2029}", "\u{202E}", "€", "ش", "🎰",
        ]
        func number() -> Double {
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: Double(Int.random(in: -1_000...1_000, using: &generator))
            case 1: Double(Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &generator))
            case 2: Double.random(in: -180...180, using: &generator)
            case 3: Double(Int.random(in: -9...9, using: &generator)) * 1e15
            default:
                Double(
                    sign: .plus, exponentBitPattern: UInt.random(in: 900...1_100, using: &generator),
                    significandBitPattern: UInt64.random(in: 0...(1 << 52 - 1), using: &generator))
            }
        }
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2:
                let x = number()
                return .number(x, isInteger: x == x.rounded() && abs(x) < 1e15)
            case 3:
                let count = Int.random(in: 0...12, using: &generator)
                return .string(
                    String(String.UnicodeScalarView((0..<count).map { _ in scalars.randomElement()! })))
            case 4:
                return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth + 1) })
            default:
                var members: [(String, JSONValue)] = []
                for i in 0..<Int.random(in: 0...4, using: &generator) {
                    members.append(("k\(i)\(scalars.randomElement()!)", value(depth + 1)))
                }
                return .object(JSONObject(members))
            }
        }
        /// The value as Foundation reads it back, for comparison with `Any`.
        func matches(_ value: JSONValue, _ other: Any) -> Bool {
            switch value {
            case .null: return other is NSNull
            case .bool(let b):
                return (other as? Bool) == b
            // Foundation on Linux reads numbers as decimals, whose `doubleValue` rounds: their
            // text, read by Swift, is compared.
            case .number(let x, _): return (other as? NSNumber).flatMap { Double($0.description) } == x
            case .string(let s): return (other as? String) == s
            case .array(let elements):
                guard let others = other as? [Any], others.count == elements.count else { return false }
                return zip(elements, others).allSatisfy { matches($0, $1) }
            case .object(let object):
                guard let others = other as? [String: Any], others.count == object.members.count else {
                    return false
                }
                return object.members.allSatisfy { member in
                    others[member.key].map { matches(member.value, $0) } ?? false
                }
            }
        }
        for _ in 0..<2_000 {
            let tree = JSONValue.array([value(0), .number(number(), isInteger: false)])
            for text in [tree.compactText, tree.prettyText] {
                let read = try JSONSerialization.jsonObject(
                    with: Data(text.utf8), options: [.fragmentsAllowed])
                #expect(matches(tree, read), "\(text)")
                // Read back by this reader (`5` and `5.0` differ only in `isInteger`, so compared as text).
                #expect(try JSONValue.parse(text).compactText == tree.compactText)
            }
        }
    }
}
