public import Foundation

/// RFC 3339 timestamps (`2026-11-21T19:30:00Z`, `2026-11-21T11:30:00.250-08:00`).
///
/// Hand-parsed rather than through `ISO8601DateFormatter` so that fractional
/// seconds of any length are kept, leap-second `:60` and impossible dates are
/// refused, and the parse is cheap enough for a million GPX points.
public enum RFC3339 {
    /// Parses a full date-time with a `Z` or `±hh:mm` offset. Lower-case `t`/`z`
    /// and a space between date and time are accepted (RFC 3339 §5.6 note).
    public static func parse(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer($0)) }
    }

    /// The same from bytes.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let parts = DateTimeParts.parse(bytes, requireOffset: true), let offset = parts.offsetSeconds
        else { return nil }
        return Date(timeIntervalSince1970: parts.secondsSinceEpochIgnoringOffset - Double(offset))
    }

    /// `2026-11-21T19:30:00Z`, or with milliseconds when the time has a fraction.
    public static func format(_ date: Date) -> String {
        let (y, mo, d, h, mi, s, millis) = fields(of: date)
        guard (0...9999).contains(y) else { return joined(y, mo, d, h, mi, s, millis) }
        // Written as bytes into the string's own storage: made of pieces (each number a string,
        // padded, then joined), a time cost a dozen small strings, and a check-in writes several
        // (its row, its answer).
        return String(unsafeUninitializedCapacity: 24) { out in
            func digits(_ value: Int, _ width: Int, at place: Int) {
                var value = value
                for i in stride(from: place + width - 1, through: place, by: -1) {
                    out[i] = 0x30 + UInt8(value % 10)
                    value /= 10
                }
            }
            digits(y, 4, at: 0)
            out[4] = 0x2D
            digits(mo, 2, at: 5)
            out[7] = 0x2D
            digits(d, 2, at: 8)
            out[10] = 0x54
            digits(h, 2, at: 11)
            out[13] = 0x3A
            digits(mi, 2, at: 14)
            out[16] = 0x3A
            digits(s, 2, at: 17)
            guard millis != 0 else {
                out[19] = 0x5A
                return 20
            }
            out[19] = 0x2E
            digits(millis, 3, at: 20)
            out[23] = 0x5A
            return 24
        }
    }

    /// The UTC year, month, day, hour, minute, second and millisecond of `date`, its fraction
    /// rounded to the millisecond.
    static func fields(of date: Date) -> (Int, Int, Int, Int, Int, Int, Int) {
        let total = date.timeIntervalSince1970
        var seconds = total.rounded(.down)
        var millis = Int(((total - seconds) * 1000).rounded())
        if millis == 1000 {
            seconds += 1
            millis = 0
        }
        let (y, mo, d, h, mi, s) = civil(fromEpochSeconds: Int64(seconds))
        return (y, mo, d, h, mi, s, millis)
    }

    /// The text of `format` joined from padded numbers: for years outside 0-9999, which do not fit
    /// its four digits.
    static func joined(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, _ millis: Int) -> String
    {
        var out = "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2))"
        if millis != 0 { out += "." + pad(millis, 3) }
        return out + "Z"
    }

    /// `value` in decimal with leading zeros to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromEpochSeconds seconds: Int64) -> (Int, Int, Int, Int, Int, Int) {
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    public static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The fields of `YYYY-MM-DD[T ]hh:mm:ss[.fff][Z|±hh:mm]`, range-checked.
public struct DateTimeParts: Equatable, Sendable {
    public var year, month, day, hour, minute: Int
    /// Seconds with their fraction.
    public var second: Double
    /// Seconds east of UTC, nil when the text carried no offset.
    public var offsetSeconds: Int?

    /// Seconds since the epoch if the wall-clock fields were UTC.
    public var secondsSinceEpochIgnoringOffset: Double {
        Double(RFC3339.daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60) + second
    }

    /// An RFC 3339 date-time from bytes (`requireOffset`: a `Z` or `±hh:mm` must follow), or nil.
    public static func parse(_ b: UnsafeBufferPointer<UInt8>, requireOffset: Bool) -> DateTimeParts? {
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(b[i]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                i += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard i < b.count, b[i] == character else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2),
            expect(UInt8(ascii: "-")), let day = number(2)
        else { return nil }
        guard i < b.count, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[i])
        else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2),
            expect(UInt8(ascii: ":")), let whole = number(2)
        else { return nil }
        var second = Double(whole)
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            var digits = 0
            while i < b.count, (48...57).contains(b[i]) {
                second += Double(b[i] - 48) * scale
                scale /= 10
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
        }
        var offset: Int?
        if i < b.count {
            switch b[i] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                offset = 0
                i += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(2), expect(UInt8(ascii: ":")), let om = number(2), oh < 24, om < 60
                else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            default: return nil
            }
        }
        guard i == b.count, !requireOffset || offset != nil else { return nil }
        guard (1...12).contains(month), (1...RFC3339.daysInMonth(year, month)).contains(day), hour < 24,
            minute < 60, whole < 60
        else { return nil }
        return DateTimeParts(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            offsetSeconds: offset)
    }
}
