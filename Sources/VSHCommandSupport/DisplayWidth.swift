import Foundation

/// How many terminal columns text takes: East Asian wide and fullwidth
/// characters and emoji take two, combining marks and invisible characters
/// none, everything else one (Unicode UAX #11, the ranges terminals use).
public enum DisplayWidth {
    public static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let p = scalar.properties
        if p.generalCategory == .nonspacingMark || p.generalCategory == .enclosingMark
            || p.isDefaultIgnorableCodePoint
        {
            return 0
        }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return 0 }
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE,
            0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5,
            0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728,
            0x274C,
            0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F,
            0x1F680...0x1F6FF,
            0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` padded with spaces to `width` columns (left-aligned, or right-aligned).
    public static func pad(_ text: String, to width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - of(text)))
        return right ? padding + text : text + padding
    }
}

/// Whether to colour terminal output: only on a terminal, and never with `NO_COLOR` set (no-color.org).
public enum TerminalStyle {
    public static var useColor: Bool {
        isatty(1) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// `text` in bold on a colour terminal. The style travels as a noncharacter marker that
    /// `Output` turns into the escape sequence after escaping every control character of the
    /// line, so that only these styles, never text from a file, reach the terminal as codes.
    public static func bold(_ text: String) -> String {
        useColor ? "\(Character(boldMarker))\(text)\(Character(resetMarker))" : text
    }
    /// `text` dimmed on a colour terminal.
    public static func dim(_ text: String) -> String {
        useColor ? "\(Character(dimMarker))\(text)\(Character(resetMarker))" : text
    }

    // Noncharacters (Unicode's "for internal use" code points; not allowed in Swift literals).
    static let boldMarker = Unicode.Scalar(UInt32(0xFDD0))!
    static let dimMarker = Unicode.Scalar(UInt32(0xFDD1))!
    static let resetMarker = Unicode.Scalar(UInt32(0xFDD2))!
}
