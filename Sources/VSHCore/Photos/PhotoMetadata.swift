public import Foundation

/// What the verifier reads from a photo's EXIF (EXIF 2.32; GPS IFD tags 0x0001-0x001F).
///
/// Every field is optional: real files lack tags, carry 0/0 rationals, impossible
/// dates or empty GPS IFDs. A value is only given when the file states it
/// unambiguously; `positionNote` says why a position is missing.
public struct PhotoMetadata: Equatable, Sendable {
    /// Signed decimal degrees (south and west negative), from GPSLatitude/GPSLongitude and their Refs.
    public var latitude: Double?
    /// Longitude in signed decimal degrees (west negative).
    public var longitude: Double?
    /// Why there is no position, when there is none (no GPS IFD, no Ref, a 0/0 degree, ...).
    public var positionNote: String?
    /// Metres above sea level; negative below it (GPSAltitudeRef = 1).
    public var altitudeMeters: Double?
    /// GPSDateStamp + GPSTimeStamp: UTC from the satellites, fraction kept.
    public var gpsTime: Date?
    /// DateTimeOriginal (+ SubSecTimeOriginal) as the camera's wall clock showed it.
    public var takenAtLocal: DateTimeParts?
    /// OffsetTimeOriginal in seconds east of UTC, when the camera wrote it.
    public var utcOffsetSeconds: Int?
    /// GPSHPositioningError: the horizontal accuracy radius in metres.
    public var accuracyMeters: Double?
    /// The camera maker (EXIF Make).
    public var make: String?
    /// The camera model (EXIF Model).
    public var model: String?
    /// The software that wrote the file (EXIF Software).
    public var software: String?
    /// Pixel size from the JPEG frame header (SOF), not from EXIF tags that editors leave stale.
    public var width: Int?
    /// The frame height in pixels.
    public var height: Int?
    /// EXIF Orientation (1-8): how to turn the stored pixels to show the photo upright.
    public var orientation: Int?

    /// Metadata with nothing known.
    public init() {}

    /// The position, when both coordinates are known and in range.
    public var position: Coordinate? {
        guard let latitude, let longitude else { return nil }
        return try? Coordinate(latitude: latitude, longitude: longitude)
    }

    /// The capture time made absolute: with OffsetTimeOriginal when the camera
    /// wrote it, else in `timeZone` (the hunt's), as the README's "Reading EXIF" says.
    public func takenAt(inTimeZone timeZone: TimeZone) -> Date? {
        guard let local = takenAtLocal else { return nil }
        let wall = local.secondsSinceEpochIgnoringOffset
        if let offset = utcOffsetSeconds { return Date(timeIntervalSince1970: wall - Double(offset)) }
        // The zone's offset at that wall-clock time: guess with the offset at
        // `wall` as if UTC, then correct once (exact except inside a DST gap).
        let guess = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall)))
        let offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - guess)))
        return Date(timeIntervalSince1970: wall - offset)
    }

    /// `taken_at` as printed: local wall-clock time in RFC 3339 form, with the
    /// offset when known (`2023-10-06T22:53:51+02:00`), else without (`2016-09-28T18:18:05`).
    public var takenAtText: String? {
        guard let local = takenAtLocal else { return nil }
        var text = local.wallClockText
        if let offset = utcOffsetSeconds { text += Self.offsetText(offset) }
        return text
    }

    /// `+02:00`, `-07:00`, `Z` never (EXIF writes `+00:00`).
    public static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + RFC3339.pad(minutes / 60, 2) + ":" + RFC3339.pad(minutes % 60, 2)
    }
}

extension DateTimeParts {
    /// `2016-09-28T18:18:05` or with milliseconds `2016-09-28T18:18:05.250`.
    public var wallClockText: String {
        let whole = Int(second)
        var text =
            "\(RFC3339.pad(year, 4))-\(RFC3339.pad(month, 2))-\(RFC3339.pad(day, 2))T"
            + "\(RFC3339.pad(hour, 2)):\(RFC3339.pad(minute, 2)):\(RFC3339.pad(whole, 2))"
        let millis = Int(((second - Double(whole)) * 1000).rounded())
        if millis > 0 && millis < 1000 { text += "." + RFC3339.pad(millis, 3) }
        return text
    }

    /// A wall-clock date and time.
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) {
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: nil
        )
    }
}
