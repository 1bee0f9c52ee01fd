/// Join codes: what players type (or scan) to join a private hunt. Capital letters and digits
/// without look-alikes (no 0 and O, no 1 and I; lower case is read as upper case, so no l either),
/// at least `minLength`; spaces and hyphens a person adds while typing are ignored.
public enum JoinCode {
    /// The characters of a code.
    public static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    /// The shortest code: 31^6 is about 890 million.
    public static let minLength = 6
    /// The longest code.
    public static let maxLength = 32
    /// The length of the codes vsh makes: 31^8, about 850 billion.
    public static let madeLength = 8

    /// A new random code of `madeLength` characters.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<madeLength).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A code as a person typed it, in its one form: upper case, without spaces and hyphens.
    public static func normalized(_ typed: String) -> String {
        String(typed.uppercased().filter { $0 != " " && $0 != "-" })
    }

    /// Why `code` (normalized) cannot be a join code, or nil when it can.
    public static func problem(_ code: String) -> String? {
        if code.count < minLength || code.count > maxLength {
            return "must be \(minLength) to \(maxLength) letters and digits (it has \(code.count))"
        }
        if let bad = code.first(where: { !alphabet.contains($0) }) {
            return
                "holds \"\(bad)\": use capital letters and digits without look-alikes (no 0, O, 1, I)"
        }
        return nil
    }
}
