/// Player names: what people are called on a leaderboard.
///
/// 1 to 40 characters after trimming; letters (any script), digits, marks,
/// spaces (not two in a row), and `. _ - '`. No control characters, no
/// invisible or direction-changing characters (a right-to-left override can
/// make a leaderboard line lie about who is first). Unique ignoring case.
public enum PlayerName {
    /// The longest name, in characters.
    public static let maxLength = 40

    /// The name as stored, or why it is refused.
    public static func validate(_ raw: String) -> Result<String, InputError> {
        let name = raw.trimmingSpaces()
        guard !name.isEmpty else { return .failure(InputError("a player name cannot be empty")) }
        guard name.count <= maxLength else {
            return .failure(InputError("player name is \(name.count) characters; the limit is \(maxLength)"))
        }
        var previousSpace = false
        for scalar in name.unicodeScalars {
            let props = scalar.properties
            let allowed =
                props.isAlphabetic || props.generalCategory == .decimalNumber
                || props.generalCategory == .nonspacingMark || props.generalCategory == .spacingMark
                || scalar == " " || ".-_'".unicodeScalars.contains(scalar)
            if !allowed || props.isDefaultIgnorableCodePoint || props.isBidiControl {
                let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
                return .failure(
                    InputError(
                        "player names may use letters, digits, spaces and . _ - ' only (found \(code))"))
            }
            if scalar == " " && previousSpace {
                return .failure(InputError("player names cannot have two spaces in a row"))
            }
            previousSpace = scalar == " "
        }
        return .success(name)
    }

    /// The key that makes names unique ignoring case.
    public static func key(_ name: String) -> String { name.lowercased() }
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
