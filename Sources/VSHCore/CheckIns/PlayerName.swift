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
    public static func validate(_ raw: String) -> Result<String, PlayerNameError> {
        let name = raw.trimmingSpaces()
        guard !name.isEmpty else { return .failure(.empty) }
        guard name.count <= maxLength else {
            return .failure(.tooLong(characters: name.count, limit: maxLength))
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
                return .failure(.disallowedCharacter(code))
            }
            if scalar == " " && previousSpace {
                return .failure(.doubleSpace)
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

/// Why a player name is refused.
public enum PlayerNameError: Error, Equatable, Sendable, CustomStringConvertible, ExitStatusProviding {
    /// Nothing but spaces.
    case empty
    /// Longer than the limit, in characters.
    case tooLong(characters: Int, limit: Int)
    /// A character names may not use, as `U+XXXX`.
    case disallowedCharacter(String)
    /// Two spaces in a row.
    case doubleSpace

    /// What is wrong with the name.
    public var description: String {
        switch self {
        case .empty: return "a player name cannot be empty"
        case .tooLong(let characters, let limit):
            return "player name is \(characters) characters; the limit is \(limit)"
        case .disallowedCharacter(let code):
            return "player names may use letters, digits, spaces and . _ - ' only (found \(code))"
        case .doubleSpace: return "player names cannot have two spaces in a row"
        }
    }

    /// 65: bad input data.
    public var exitStatus: ExitStatus { .dataError }
}
