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
}
