/// Text from hunt and badge files is shown on terminals, leaderboards and maps: it may not
/// hold control characters (an escape sequence could rewrite a player's terminal) or
/// text-direction controls (a right-to-left override makes a line read other than it is).
/// Right-to-left scripts themselves are welcome.
public enum DisplayText {
    /// Why `text` cannot be shown safely, or nil. `multiline` allows line feeds.
    public static func problem(in text: String, multiline: Bool = false) -> String? {
        for scalar in text.unicodeScalars {
            let bidi = scalar.properties.isBidiControl
            guard bidi || (scalar.properties.generalCategory == .control && !(multiline && scalar == "\n"))
            else { continue }
            var code = String(scalar.value, radix: 16, uppercase: true)
            code = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return "contains \(bidi ? "a text-direction control" : "a control character") (U+\(code))"
        }
        return nil
    }

    /// `text` safe to write to a terminal: every control character but line feed, tab and a
    /// carriage return before a line feed,
    /// every text-direction control and the line and paragraph separators written as
    /// `\u{1B}` (an escape sequence in a photo's EXIF or a file's name could otherwise move
    /// the cursor and rewrite what a moderator reads). Everything else, right-to-left
    /// scripts and emoji included, is kept. The one escaper for text shown on a terminal:
    /// the commands' output goes through it.
    public static func escapedForTerminal(_ text: String) -> String {
        // Most output is ASCII without controls: nothing to do.
        if !text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 >= 0x7F }) {
            return text
        }
        let scalars = Array(text.unicodeScalars)
        // A carriage return that ends a line (CSV's CRLF) is a line end, not a control to show.
        func escapes(_ index: Int) -> Bool {
            needsEscape(scalars[index])
                && !(scalars[index] == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n")
        }
        guard scalars.indices.contains(where: escapes) else { return text }
        var out = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if escapes(index) {
                out.append(
                    contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\n" || scalar == "\t" { return false }
        // Printable ASCII, most of any line: no Unicode property lookups (a batch's lines carry a "·").
        if scalar.value >= 0x20 && scalar.value < 0x7F { return false }
        let props = scalar.properties
        return props.generalCategory == .control || props.isBidiControl
            || props.generalCategory == .lineSeparator || props.generalCategory == .paragraphSeparator
    }
}
