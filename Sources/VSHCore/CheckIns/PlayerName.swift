import Foundation

/// Player names: what people are called on a leaderboard.
///
/// 1 to 40 characters after trimming (and at most 120 code points, so that a character
/// cannot carry a kilobyte of combining marks); letters (any script), digits, marks,
/// spaces (not two in a row), and `. _ - '`. No control characters, no invisible or
/// direction-changing characters (a right-to-left override can make a leaderboard line
/// lie about who is first), and no mixing of scripts (a Cyrillic "А" in "Ann Lee").
///
/// Names are stored and shown in Unicode NFC ("José" typed with a precomposed é or with
/// e + U+0301 is the same name) and unique by their NFKC case-folded key, so "ANN",
/// "ann" and full-width "Ａｎｎ" are one name.
public enum PlayerName {
    /// The longest name, in characters.
    public static let maxLength = 40
    /// The most code points a name may have (3 a character on average).
    public static let maxScalars = 120

    /// The name as stored (trimmed, NFC), or why it is refused.
    public static func validate(_ raw: String) -> Result<String, PlayerNameError> {
        let name = raw.trimmingSpaces().precomposedStringWithCanonicalMapping
        guard !name.isEmpty else { return .failure(.empty) }
        guard name.count <= maxLength else {
            return .failure(.tooLong(characters: name.count, limit: maxLength))
        }
        let scalars = name.unicodeScalars.count
        guard scalars <= maxScalars else {
            return .failure(.tooManyMarks(codePoints: scalars, limit: maxScalars))
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
        if let mixed = Script.mixture(of: name) { return .failure(.mixedScripts(mixed.0, mixed.1)) }
        // "." and ".." would be path segments in a profile's link, "-" or "'" no name at all.
        guard
            name.unicodeScalars.contains(where: {
                $0.properties.isAlphabetic || $0.properties.numericType != nil
            })
        else { return .failure(.noLetter) }
        return .success(name)
    }

    /// Players' names and keys after a change of `key`: each name in NFC with its key, in id
    /// order; a later player whose key an earlier one already has keeps a key of its own
    /// (`key#id`, which no valid name makes), so that nobody is lost, though that name can
    /// no longer be looked up (such pairs look identical on a leaderboard).
    public static func rekeyed(_ players: [(id: Int64, name: String)]) -> [(
        id: Int64, name: String, key: String
    )] {
        var taken: Set<String> = []
        return players.sorted { $0.id < $1.id }.map { player in
            let name = player.name.precomposedStringWithCanonicalMapping
            var key = key(name)
            if !taken.insert(key).inserted { key += "#\(player.id)" }
            return (player.id, name, key)
        }
    }

    /// The key that makes names unique: NFKC, case-folded, NFKC again (Unicode's
    /// NFKC_Casefold idea): case, precomposition and compatibility forms do not count.
    public static func key(_ name: String) -> String {
        name.trimmingSpaces().precomposedStringWithCompatibilityMapping
            .folding(options: .caseInsensitive, locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}

/// The writing systems of letters, by Unicode block: enough to tell the scripts whose
/// letters look alike (Latin, Greek, Cyrillic, Armenian, Cherokee, ...) apart. Digits 0-9,
/// punctuation and combining marks belong to none. A simplification of Unicode TR 39's
/// "highly restrictive" level: one script, or Latin with the scripts written together
/// in Chinese, Japanese and Korean names.
enum Script: String, CaseIterable {
    case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic", armenian = "Armenian"
    case hebrew = "Hebrew", arabic = "Arabic", syriac = "Syriac", thaana = "Thaana", nko = "NKo"
    case devanagari = "Devanagari", bengali = "Bengali", gurmukhi = "Gurmukhi", gujarati = "Gujarati"
    case oriya = "Oriya", tamil = "Tamil", telugu = "Telugu", kannada = "Kannada"
    case malayalam = "Malayalam", sinhala = "Sinhala", thai = "Thai", lao = "Lao", tibetan = "Tibetan"
    case myanmar = "Myanmar", georgian = "Georgian", hangul = "Hangul", ethiopic = "Ethiopic"
    case cherokee = "Cherokee", canadian = "Canadian Aboriginal", khmer = "Khmer"
    case mongolian = "Mongolian", hiragana = "Hiragana", katakana = "Katakana"
    case bopomofo = "Bopomofo", han = "Han"

    static let ranges: [(ClosedRange<UInt32>, Script)] = [
        (0x41...0x5A, .latin), (0x61...0x7A, .latin), (0xAA...0xAA, .latin), (0xBA...0xBA, .latin),
        (0xC0...0x24F, .latin), (0x250...0x2AF, .latin), (0x1D00...0x1D7F, .latin),
        (0x1E00...0x1EFF, .latin), (0x2C60...0x2C7F, .latin), (0xA720...0xA7FF, .latin),
        (0xAB30...0xAB6F, .latin), (0xFF21...0xFF3A, .latin), (0xFF41...0xFF5A, .latin),
        (0x370...0x3FF, .greek), (0x1F00...0x1FFF, .greek),
        (0x400...0x52F, .cyrillic), (0x1C80...0x1C8F, .cyrillic), (0x2DE0...0x2DFF, .cyrillic),
        (0xA640...0xA69F, .cyrillic),
        (0x530...0x58F, .armenian), (0xFB13...0xFB17, .armenian),
        (0x590...0x5FF, .hebrew), (0xFB1D...0xFB4F, .hebrew),
        (0x600...0x6FF, .arabic), (0x750...0x77F, .arabic), (0x8A0...0x8FF, .arabic),
        (0xFB50...0xFDFF, .arabic), (0xFE70...0xFEFF, .arabic),
        (0x700...0x74F, .syriac), (0x780...0x7BF, .thaana), (0x7C0...0x7FF, .nko),
        (0x900...0x97F, .devanagari), (0xA8E0...0xA8FF, .devanagari), (0x980...0x9FF, .bengali),
        (0xA00...0xA7F, .gurmukhi), (0xA80...0xAFF, .gujarati), (0xB00...0xB7F, .oriya),
        (0xB80...0xBFF, .tamil), (0xC00...0xC7F, .telugu), (0xC80...0xCFF, .kannada),
        (0xD00...0xD7F, .malayalam), (0xD80...0xDFF, .sinhala), (0xE00...0xE7F, .thai),
        (0xE80...0xEFF, .lao), (0xF00...0xFFF, .tibetan), (0x1000...0x109F, .myanmar),
        (0x10A0...0x10FF, .georgian), (0x1C90...0x1CBF, .georgian), (0x2D00...0x2D2F, .georgian),
        (0x1100...0x11FF, .hangul), (0x3130...0x318F, .hangul), (0xA960...0xA97F, .hangul),
        (0xAC00...0xD7FF, .hangul), (0xFFA0...0xFFDC, .hangul),
        (0x1200...0x139F, .ethiopic), (0x2D80...0x2DDF, .ethiopic),
        (0x13A0...0x13FF, .cherokee), (0xAB70...0xABBF, .cherokee), (0x1400...0x167F, .canadian),
        (0x1780...0x17FF, .khmer), (0x1800...0x18AF, .mongolian),
        (0x3040...0x309F, .hiragana), (0x30A0...0x30FF, .katakana), (0x31F0...0x31FF, .katakana),
        (0xFF66...0xFF9F, .katakana), (0x3100...0x312F, .bopomofo), (0x31A0...0x31BF, .bopomofo),
        (0x2E80...0x2FDF, .han), (0x3005...0x3007, .han), (0x3021...0x3029, .han),
        (0x3038...0x303B, .han), (0x3400...0x4DBF, .han), (0x4E00...0x9FFF, .han),
        (0xF900...0xFAFF, .han), (0x20000...0x3134F, .han),
    ]

    /// The script of a letter or digit, or nil for one that belongs to none of these.
    static func of(_ scalar: Unicode.Scalar) -> Script? {
        let props = scalar.properties
        guard props.isAlphabetic || props.generalCategory == .decimalNumber else { return nil }
        return ranges.first { $0.0.contains(scalar.value) }?.1
    }

    /// Script sets written together in one name (TR 39's highly restrictive level).
    static let together: [Set<Script>] = [
        [.latin, .han, .hiragana, .katakana], [.latin, .han, .bopomofo], [.latin, .han, .hangul],
    ]

    /// Two scripts of `text` that may not be mixed, or nil when it is written in one.
    static func mixture(of text: String) -> (String, String)? {
        var seen: [Script] = []
        for scalar in text.unicodeScalars {
            guard let script = of(scalar), !seen.contains(script) else { continue }
            seen.append(script)
        }
        guard seen.count > 1, !together.contains(where: { $0.isSuperset(of: seen) }) else { return nil }
        let first = seen[0]
        let other =
            seen.dropFirst().first { script in !together.contains { $0.isSuperset(of: [first, script]) } }
            ?? seen[1]
        return (first.rawValue, other.rawValue)
    }
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
public enum PlayerNameError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// Nothing but spaces.
    case empty
    /// Longer than the limit, in characters.
    case tooLong(characters: Int, limit: Int)
    /// A character names may not use, as `U+XXXX`.
    case disallowedCharacter(String)
    /// Two spaces in a row.
    case doubleSpace
    /// More code points than the limit (combining marks piled on a few characters).
    case tooManyMarks(codePoints: Int, limit: Int)
    /// Letters of two scripts that may not be mixed.
    case mixedScripts(String, String)
    /// Punctuation only ("." or ".."): no letter and no digit.
    case noLetter

    /// What is wrong with the name.
    public var description: String {
        switch self {
        case .empty: return "a player name cannot be empty"
        case .tooLong(let characters, let limit):
            return "player name is \(characters) characters; the limit is \(limit)"
        case .disallowedCharacter(let code):
            return "player names may use letters, digits, spaces and . _ - ' only (found \(code))"
        case .doubleSpace: return "player names cannot have two spaces in a row"
        case .tooManyMarks(let codePoints, let limit):
            return
                "player name has \(codePoints) code points (too many combining marks); the limit is \(limit)"
        case .mixedScripts(let first, let second):
            return
                "player names may not mix \(first) and \(second) letters (look-alikes pass for other names)"
        case .noLetter: return "a player name needs at least one letter or digit"
        }
    }

    /// Bad input data.
    public var errorKind: ErrorKind { .invalidData }
}
