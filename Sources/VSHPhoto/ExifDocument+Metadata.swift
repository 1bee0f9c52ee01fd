import Foundation
import VSHCore

extension ExifDocument {
    /// Reads the verifier's fields with vsh's documented rules (README, "Reading EXIF").
    func metadata() -> PhotoMetadata {
        var metadata = PhotoMetadata()
        readPosition(into: &metadata)
        if let altitude = ratios(.gps, Tag.gpsAltitude)?.first?.value, altitude.isFinite {
            metadata.altitudeMeters = integer(.gps, Tag.gpsAltitudeRef) == 1 ? -abs(altitude) : altitude
        }
        metadata.gpsTime = gpsTime()
        if let error = ratios(.gps, Tag.gpsHPositioningError)?.first?.value, error.isFinite, error >= 0 {
            metadata.accuracyMeters = error
        }
        if let original = text(.exif, Tag.dateTimeOriginal), var parts = Self.exifDateTime(original) {
            if let subsec = self.text(.exif, Tag.subSecTimeOriginal), let fraction = Self.fraction(subsec) {
                parts.second = parts.second.rounded(.down) + fraction
            }
            metadata.takenAtLocal = parts
            metadata.utcOffsetSeconds = self.text(.exif, Tag.offsetTimeOriginal).flatMap(Self.offset)
        }
        metadata.make = text(.ifd0, Tag.make)
        metadata.model = text(.ifd0, Tag.model)
        metadata.software = text(.ifd0, Tag.software)
        if let orientation = integer(.ifd0, Tag.orientation), (1...8).contains(orientation) {
            metadata.orientation = orientation
        }
        return metadata
    }

    /// Latitude and longitude in signed degrees.
    ///
    /// - Components: 1 to 3 rationals, degrees + minutes/60 + seconds/3600.
    ///   A 0/0 seconds counts as 0 (the degrees and minutes still fix the
    ///   position; cameras write decimal minutes with 0/0 seconds). A 0/0 or x/0
    ///   degree or minute leaves the position unknown.
    /// - Sign: from the Ref (N/S, E/W). Without a Ref, a negative SRATIONAL
    ///   carries its own sign; an unsigned value does not say which hemisphere,
    ///   so the position is unknown (exiftool prints the magnitude, which can
    ///   put a photo on the wrong side of the planet).
    private func readPosition(into metadata: inout PhotoMetadata) {
        let latitude = coordinate(
            Tag.gpsLatitude, ref: Tag.gpsLatitudeRef, negative: "S", positive: "N", limit: 90)
        let longitude = coordinate(
            Tag.gpsLongitude, ref: Tag.gpsLongitudeRef, negative: "W", positive: "E", limit: 180)
        switch (latitude, longitude) {
        case (.success(let lat), .success(let lon)):
            metadata.latitude = lat
            metadata.longitude = lon
        case (.failure(let note), _), (_, .failure(let note)):
            metadata.positionNote = note.text
        }
    }

    struct Note: Error { let text: String }

    private func coordinate(
        _ tag: UInt32, ref: UInt32, negative: Character, positive: Character, limit: Double
    ) -> Result<Double, Note> {
        let name = tag == Tag.gpsLatitude ? "latitude" : "longitude"
        guard let parts = ratios(.gps, tag), (1...3).contains(parts.count) else {
            return .failure(Note(text: "no GPS \(name)"))
        }
        var degrees = 0.0
        for (index, part) in parts.enumerated() {
            let value: Double
            if let v = part.value, v.isFinite {
                value = v
            } else if index == 2 && part.isZeroOverZero {
                value = 0
            } else {
                return .failure(Note(text: "GPS \(name) has a division by zero"))
            }
            degrees += value / [1.0, 60.0, 3600.0][index]
        }
        let refLetter = text(.gps, ref)?.uppercased().first
        switch refLetter {
        case negative: degrees = -abs(degrees)
        case positive: degrees = abs(degrees)
        default:
            if degrees >= 0 && !parts.contains(where: { $0.numerator < 0 || $0.denominator < 0 }) {
                return .failure(
                    Note(text: "GPS \(name) has no \(name == "latitude" ? "N/S" : "E/W") reference"))
            }
        }
        guard abs(degrees) <= limit else { return .failure(Note(text: "GPS \(name) is out of range")) }
        return .success(degrees)
    }

    /// GPSDateStamp (`YYYY:MM:DD`) + GPSTimeStamp (hours, minutes, seconds), UTC.
    /// The date stamp must begin with a valid date not followed by another
    /// digit (`2014:09:259` is refused; `2008:05:08 09:54:28` gives 2008-05-08).
    private func gpsTime() -> Date? {
        guard let stamp = text(.gps, Tag.gpsDateStamp), let date = Self.exifDate(stamp),
            let time = ratios(.gps, Tag.gpsTimeStamp), time.count == 3
        else { return nil }
        let values = time.compactMap(\.value)
        guard values.count == 3, (0..<24).contains(values[0]), (0..<60).contains(values[1]),
            (0..<61).contains(values[2])
        else { return nil }
        let seconds =
            Double(RFC3339.daysFromCivil(date.year, date.month, date.day) * 86_400)
            + values[0] * 3600 + values[1] * 60 + values[2]
        return Date(timeIntervalSince1970: seconds)
    }

    static func exifDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: ":"), bytes[7] == UInt8(ascii: ":") else {
            return nil
        }
        if bytes.count > 10, (48...57).contains(bytes[10]) { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), y >= 1,
            (1...12).contains(m), (1...RFC3339.daysInMonth(y, m)).contains(d)
        else { return nil }
        return (y, m, d)
    }

    /// `YYYY:MM:DD HH:MM:SS` (EXIF 2.32 §4.6.5); blanks and zeros mean unknown.
    static func exifDateTime(_ text: String) -> DateTimeParts? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, let date = exifDate(String(decoding: bytes[0..<10], as: UTF8.self)),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19), h < 24, mi < 60,
            s < 60
        else { return nil }
        return DateTimeParts(
            year: date.year, month: date.month, day: date.day, hour: h, minute: mi, second: Double(s))
    }

    /// SubSecTimeOriginal: decimal digits of a second (`"25"` is 0.25 s).
    static func fraction(_ text: String) -> Double? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        return Double("0." + digits)
    }

    /// OffsetTimeOriginal: `+HH:MM` / `-HH:MM`.
    static func offset(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
            bytes[3] == UInt8(ascii: ":"),
            let h = Int(String(decoding: bytes[1..<3], as: UTF8.self)),
            let m = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            h <= 14, m < 60
        else { return nil }
        return (bytes[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60)
    }
}
