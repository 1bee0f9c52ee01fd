public import Foundation
public import VSHCore

/// One point of a GPX file (GPX 1.1 `wptType`; 1.0 the same fields).
public struct GPXPoint: Sendable, Equatable {
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
public enum GPXEvent: Sendable, Equatable {
    case trackStart
    case segmentStart
    case routeStart
    case point(GPXPoint)
    /// A point that was skipped, with the reason (printed as a warning naming the line).
    case skipped(line: Int, reason: String)
}

/// Why a GPX file could not be read.
public typealias GPXError = XMLFileError

/// A streaming GPX 1.0/1.1 reader: memory stays flat whatever the file's size, and nothing is
/// allocated per point in the common case. Element names are matched without their namespace,
/// so files without one, with 1.0's or 1.1's, and with extensions (Garmin, Apple) read alike.
/// Comments and a byte order mark are fine. Entities are not expanded and the network is never used.
///
/// A file in the plain form loggers write is read by scanning its bytes (`GPXByteScanner`), a
/// long one in segments on two cores (`GPXSegmentedScan`); anything else, malformed files
/// included, by libxml2's SAX2 parser, which names the error.
public enum GPXReader {
    /// Reads `path`, calling `handle` for each event in document order.
    ///
    /// When the byte scanner stops short of the end (the file is not in the plain form), the
    /// events it gave are void: `restart` is called, and libxml2 reads the file from its start.
    /// So it is when a long file's segments do not join: the scanner reads it again in one piece.
    /// - Returns: the `version` attribute of `<gpx>`, if any.
    @discardableResult
    public static func read(path: String, _ handle: (GPXEvent) throws -> Void, restart: () -> Void) throws
        -> String?
    {
        try withFile(path) { file in
            let size = fileSize(file)
            // A long file on two cores first (`GPXSegmentedScan`); in one piece if its segments
            // do not join.
            var joined = 0
            if GPXSegmentedScan.worthIt(size: size) {
                let (outcome, version) = try scan(
                    file, path, segments: GPXSegmentedScan.segmentBytes, size, joined: &joined, handle)
                if outcome == .read { return version }
                restart()
                if case .declined = outcome { return try GPXSAXParser.read(file: file, path: path, handle) }
            }
            let (outcome, version) = try scan(file, path, segments: nil, size, joined: &joined, handle)
            if outcome == .read { return version }
            restart()
            return try GPXSAXParser.read(file: file, path: path, handle)
        }
    }

    /// One scan of the open file by the byte scanner, in segments of `segments` bytes or in one
    /// piece: its outcome, and the root's `version` attribute.
    static func scan(
        _ file: Int32, _ path: String, segments: Int?, _ size: Int, joined: inout Int,
        _ handle: (GPXEvent) throws -> Void
    ) throws -> (GPXByteScanner.Outcome, String?) {
        try withoutActuallyEscaping(handle) { escapable in
            var builder = GPXBuilder(handle: escapable)
            defer { builder.release() }
            let outcome =
                if let segments {
                    try GPXSegmentedScan.scan(
                        file: file, path: path, size: size, segmentBytes: segments, into: &builder,
                        joined: &joined)
                } else {
                    try GPXByteScanner.scan(file: file, path: path, into: &builder)
                }
            return (outcome, builder.version)
        }
    }

    /// The open file's size in bytes (0 when it cannot be told).
    static func fileSize(_ file: Int32) -> Int {
        var info = stat()
        return fstat(file, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Reads `path` with the byte scanner in segments of `segmentBytes` on two threads (the
    /// tests, with small segments): its outcome and how many segments' events were used, with
    /// `version` set and the events in `handle`.
    static func scanInSegments(
        path: String, segmentBytes: Int, version: inout String?, _ handle: (GPXEvent) throws -> Void
    ) throws -> (outcome: GPXByteScanner.Outcome, joined: Int) {
        try withFile(path) { file in
            var joined = 0
            let (outcome, read) = try scan(
                file, path, segments: segmentBytes, fileSize(file), joined: &joined, handle)
            version = read
            return (outcome, joined)
        }
    }

    /// Reads `path` with libxml2 alone (the differential tests and the fuzzer).
    @discardableResult
    public static func readWithLibXML2(path: String, _ handle: (GPXEvent) throws -> Void) throws -> String? {
        try withFile(path) { try GPXSAXParser.read(file: $0, path: path, handle) }
    }

    /// Reads `path` with the byte scanner alone, in one piece or, given `segmentBytes`, in
    /// segments of that size on two threads: nil when it read the whole file (`version` then
    /// holds the root's attribute), else why it declined (`unsettled` for segments that did not
    /// join), with the events so far void.
    public static func scanOnly(
        path: String, version: inout String?, segmentBytes: Int? = nil, _ handle: (GPXEvent) throws -> Void
    ) throws -> String? {
        try withFile(path) { file in
            var joined = 0
            let (outcome, read) = try scan(
                file, path, segments: segmentBytes, fileSize(file), joined: &joined, handle)
            version = read
            switch outcome {
            case .read: return nil
            case .declined(let reason): return reason
            case .stopped, .unsettled: return Self.unsettled
            }
        }
    }

    /// What `scanOnly` says of segments that did not join.
    public static let unsettled = "unsettled: the segments did not join"

    /// Opens a regular file for reading: a FIFO or device would block, a directory is not a file.
    static func withFile<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        guard RegularFile.check(path) else { throw XMLFileError.unreadable(file: path) }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw XMLFileError.unreadable(file: path) }
        defer { close(file) }
        return try body(file)
    }
}

/// GPX times: xsd:dateTime, UTC when no offset is given, any fraction.
public enum GPXTime {
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { parse($0) }
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if bytes.count == 20, let seconds = utcSeconds(bytes) { return Date(timeIntervalSince1970: seconds) }
        guard let parts = DateTimeParts.parse(bytes, requireOffset: false) else { return nil }
        return Date(
            timeIntervalSince1970: parts.secondsSinceEpochIgnoringOffset - Double(parts.offsetSeconds ?? 0))
    }

    /// The form loggers write, `2026-11-21T19:30:00Z`, read at fixed places: the same value as
    /// `DateTimeParts` gives (it reads every other form), without its general walk.
    static func utcSeconds(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A else {
            return nil
        }
        // Each digit's distance from "0" (a byte that is not a digit is more than 9 away).
        @inline(__always) func d(_ k: Int) -> Int { Int(b[k] &- 0x30) }
        guard d(0) <= 9, d(1) <= 9, d(2) <= 9, d(3) <= 9, d(5) <= 9, d(6) <= 9, d(8) <= 9, d(9) <= 9,
            d(11) <= 9, d(12) <= 9, d(14) <= 9, d(15) <= 9, d(17) <= 9, d(18) <= 9
        else { return nil }
        let year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3)
        let month = d(5) * 10 + d(6)
        let day = d(8) * 10 + d(9)
        let hour = d(11) * 10 + d(12)
        let minute = d(14) * 10 + d(15)
        let second = d(17) * 10 + d(18)
        guard (1...12).contains(month), day >= 1, day <= RFC3339.daysInMonth(year, month), hour < 24,
            minute < 60,
            second < 60
        else { return nil }
        return Double(RFC3339.daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60)
            + Double(second)
    }
}
