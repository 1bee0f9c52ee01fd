import Foundation
import Testing

@testable import VSHServer

/// The server's own trim (request headers, form fields, the bearer token) gives exactly what
/// Foundation's `trimmingCharacters(in:)` gives, on text made of every kind of white space there is.
@Suite struct TrimmingTests {
    /// White space of both sets (ASCII, Latin-1, the Unicode spaces and separators), other controls
    /// and ordinary letters, ASCII and not.
    static let alphabet: [String] = [
        " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{2009}",
        "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "\u{01}",
        "\u{7F}",
        "a", "Z", "0", ";", "=", "\"", "é", "ش", "🎰", "e\u{301}",
    ]

    @Test func givesFoundationsAnswerOnEveryMixOfWhiteSpace() {
        var generator = SystemRandomNumberGenerator()
        var trimmedSome = 0
        for round in 0..<20_000 {
            let length = round < 30 ? round % 3 : Int.random(in: 0...8, using: &generator)
            let text = (0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }.joined()
            for newlines in [false, true] {
                let expected = text.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
                let got = text.trimmingWhiteSpace(newlines: newlines)
                #expect(got == expected, "\(Array(text.unicodeScalars)) newlines: \(newlines)")
                // The same through a substring, as the header and form parsers call it.
                let inner = ("x" + text + "x").dropFirst().dropLast()
                #expect(inner.trimmingWhiteSpace(newlines: newlines) == expected)
                if got != text { trimmedSome += 1 }
            }
        }
        #expect(trimmedSome > 1_000)
    }

    @Test func cutsSpacesAndTabsOfHeaderValues() {
        #expect(" \tBearer abc \t".trimmingWhiteSpace() == "Bearer abc")
        #expect(" 36.1\r\n".trimmingWhiteSpace() == "36.1\r\n")
        #expect(" 36.1\r\n".trimmingWhiteSpace(newlines: true) == "36.1")
        #expect("\u{A0}36.1\u{3000}".trimmingWhiteSpace() == "36.1")
        #expect(" \t ".trimmingWhiteSpace() == "")
    }
}
