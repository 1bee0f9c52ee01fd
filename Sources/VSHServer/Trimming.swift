import Foundation

extension Substring {
    /// The text without leading and trailing white space: the same result as Foundation's
    /// `trimmingCharacters(in: .whitespaces)` (or `.whitespacesAndNewlines`), without its cost on
    /// the text a request carries. Foundation's trim copies the text into an `NSString` and back,
    /// and was 6 % of the server's CPU on device-fix check-ins (header lines, form fields, the bearer
    /// token, each number of the fix).
    ///
    /// Spaces and tabs (and with `newlines`, LF, VT, FF and CR) are cut here, byte by byte. Once both
    /// ends are other ASCII bytes, no white space can be left at them: every other character of those
    /// sets is outside ASCII. Only text that begins or ends outside ASCII goes to Foundation.
    func trimmingWhiteSpace(newlines: Bool = false) -> String {
        let bytes = utf8
        func isCut(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || (newlines && (0x0A...0x0D).contains(byte))
        }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isCut(bytes[start]) { start = bytes.index(after: start) }
        while start < end, isCut(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        guard start < end else { return "" }
        let rest = self[start..<end]
        if bytes[start] < 0x80, bytes[bytes.index(before: end)] < 0x80 { return String(rest) }
        return rest.trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
    }
}

extension String {
    /// See `Substring.trimmingWhiteSpace(newlines:)`.
    func trimmingWhiteSpace(newlines: Bool = false) -> String {
        self[...].trimmingWhiteSpace(newlines: newlines)
    }
}
