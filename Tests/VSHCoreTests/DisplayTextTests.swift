import Testing
import VSHCore

@Suite struct DisplayTextTests {
    @Test func controlAndDirectionCharactersAreShownNotObeyed() {
        #expect(DisplayText.escapedForTerminal("plain, ASCII\tand\nlines") == "plain, ASCII\tand\nlines")
        #expect(DisplayText.escapedForTerminal("Zoë ✓ شارع 🎲") == "Zoë ✓ شارع 🎲")
        #expect(DisplayText.escapedForTerminal("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
        #expect(DisplayText.escapedForTerminal("evil\u{202E}gpj.exe") == "evil\\u{202E}gpj.exe")
        #expect(DisplayText.escapedForTerminal("c1\u{9B}31m") == "c1\\u{9B}31m")
        #expect(DisplayText.escapedForTerminal("line\u{2028}sep") == "line\\u{2028}sep")
        // A carriage return that ends a line (CSV's CRLF) is kept; one that rewinds a line is not.
        #expect(DisplayText.escapedForTerminal("a,b\r\nc,d\r\n") == "a,b\r\nc,d\r\n")
        #expect(DisplayText.escapedForTerminal("100 points\rfake") == "100 points\\u{D}fake")
        #expect(DisplayText.escapedForTerminal("end\r") == "end\\u{D}")
    }
}
