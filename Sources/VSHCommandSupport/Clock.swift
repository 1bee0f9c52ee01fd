public import Foundation
import VSHCore

/// `--now T`: replaces the clock so fixtures and replays are reproducible.
public enum Clock {
    /// The time given with `--now`, else the system clock.
    /// - Throws: `InputError` (exit 64) when the text is not RFC 3339 with an offset.
    public static func now(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        return try time(text, option: "--now")
    }

    /// An RFC 3339 time from an option.
    public static func time(_ text: String, option: String) throws -> Date {
        guard let date = RFC3339.parse(text) else {
            throw InputError(
                "\(option) \"\(text)\" is not an RFC 3339 time such as 2026-11-21T19:30:00Z", status: .usage)
        }
        return date
    }
}
