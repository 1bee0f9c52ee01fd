/// Text made safe inside HTML, SVG and XML elements and quoted attributes: the one escaper for every
/// page, map, board and export vsh writes itself (the web app builds its pages from values, never
/// from markup text).
public enum Markup {
    /// `text` with `&`, `<`, `>`, `"` and `'` written as references.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
