public import Foundation
public import VSHCore

/// One point of a GPX file (GPX 1.1 `wptType`; 1.0 the same fields).
public struct GPXPoint: Sendable {
    public enum Kind: Sendable { case track, route, waypoint }
    public var kind: Kind
    public var latitude: Double
    public var longitude: Double
    public var elevationMeters: Double?
    /// UTC (GPX times without an offset are UTC, GPX 1.1 §dateTime).
    public var time: Date?
    public var hdop: Double?
    /// A horizontal accuracy in metres from an extension (`hAcc`, `horizontalAccuracy`), when a logger wrote one.
    public var horizontalAccuracyMeters: Double?
    /// The line of the point's start tag.
    public var line: Int

    public var coordinate: Coordinate { Coordinate(unchecked: latitude, longitude) }
}

/// What the reader reports, in document order.
public enum GPXEvent: Sendable {
    case trackStart
    case segmentStart
    case routeStart
    case point(GPXPoint)
    /// A point that was skipped, with the reason (printed as a warning naming the line).
    case skipped(line: Int, reason: String)
}

/// Why a GPX file could not be read.
public typealias GPXError = XMLFileError

/// A streaming GPX 1.0/1.1 reader on libxml2's SAX2 push parser: memory stays
/// flat whatever the file's size, and nothing is allocated per point in the common case. Element names are matched without their
/// namespace, so files without one, with 1.0's or 1.1's, and with extensions
/// (Garmin, Apple) read alike. Comments and a byte order mark are fine.
/// Entities are not expanded and the network is never used.
public enum GPXReader {
    /// Reads `path`, calling `handle` for each event in document order.
    /// - Returns: the `version` attribute of `<gpx>`, if any.
    @discardableResult
    public static func read(path: String, _ handle: (GPXEvent) throws -> Void) throws -> String? {
        try GPXSAXParser.read(path: path, handle)
    }

    /// The point being read and the child element whose text is being collected.
    struct State {
        var point: GPXPoint?
        var problem: String?
        var field: String?
        var text = ""

        mutating func begin(kind: GPXPoint.Kind, latitude: String?, longitude: String?, line: Int) {
            field = nil
            text = ""
            problem = nil
            let lat = latitude.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            let lon = longitude.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if lat == nil || lon == nil {
                problem = "no valid lat/lon attributes"
            } else if !(lat!.isFinite && lon!.isFinite && abs(lat!) <= 90 && abs(lon!) <= 180) {
                problem = "latitude or longitude out of range"
            }
            point = GPXPoint(kind: kind, latitude: lat ?? 0, longitude: lon ?? 0, line: line)
        }

        mutating func store() {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch field {
            case "ele": point?.elevationMeters = Double(value).flatMap { $0.isFinite ? $0 : nil }
            case "time": point?.time = GPXTime.parse(value)
            case "hdop": point?.hdop = Double(value).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            case "hAcc", "horizontalAccuracy", "hacc", "accuracy":
                point?.horizontalAccuracyMeters = Double(value).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            default: break
            }
            field = nil
            text = ""
        }

        mutating func finish(_ handle: (GPXEvent) throws -> Void) throws {
            guard let done = point else { return }
            point = nil
            field = nil
            text = ""
            if let problem {
                try handle(.skipped(line: done.line, reason: problem))
            } else {
                try handle(.point(done))
            }
        }
    }
}

/// GPX times: xsd:dateTime, UTC when no offset is given, any fraction.
public enum GPXTime {
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { parse($0) }
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let parts = DateTimeParts.parse(bytes, requireOffset: false) else { return nil }
        return Date(
            timeIntervalSince1970: parts.secondsSinceEpochIgnoringOffset - Double(parts.offsetSeconds ?? 0))
    }
}
