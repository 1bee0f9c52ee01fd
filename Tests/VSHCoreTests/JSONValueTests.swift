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
}
