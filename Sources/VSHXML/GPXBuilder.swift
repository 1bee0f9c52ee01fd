import Foundation
import VSHCore

/// What a GPX file's elements mean, whichever parser found them: libxml2's SAX2 callbacks
/// (`GPXSAXParser`) or the byte scanner (`GPXByteScanner`) call the same three methods in
/// document order, so the two readers cannot differ in what a point is.
struct GPXBuilder {
    let handle: (GPXEvent) throws -> Void
    /// The handler's error: the parse stops and it is rethrown.
    var thrown: (any Error)?
    var sawRoot = false
    var rootName = ""
    /// How deep the current element is; GPX needs 6 levels, extensions a few more.
    var depth = 0
    var version: String?
    var point: GPXPoint?
    var problem: String?
    var field: Field = .none
    /// The current field's text: `textCount` bytes at `text` (raw memory: it is emptied and
    /// filled for every field of every point). Freed by `release()`.
    let text: UnsafeMutablePointer<UInt8>
    var textCount = 0

    enum Field { case none, ele, time, hdop, accuracy }

    /// Whether the parse goes on after an element's start.
    enum Start { case going, tooDeep, wrongRoot }

    /// Deeper than this is not a GPX file but an attack on whoever reads it.
    static let maxDepth = 256
    /// The text kept of one field: no number or time is longer. A piece of text that starts
    /// below this is kept whole, up to `textCapacity` (libxml2 hands text over in pieces of
    /// about 300 bytes).
    static let maxText = 256
    static let textCapacity = maxText + 4096

    init(handle: @escaping (GPXEvent) throws -> Void) {
        self.handle = handle
        text = .allocate(capacity: Self.textCapacity)
    }

    func release() { text.deallocate() }

    mutating func emit(_ event: GPXEvent) {
        guard thrown == nil else { return }
        do { try handle(event) } catch { thrown = error }
    }

    /// Whether a name equals a literal.
    @inline(__always)
    static func name(_ bytes: UnsafeBufferPointer<UInt8>, is literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount
            && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    /// An element starts; `line` is asked only for a point's.
    @inline(__always)
    mutating func start<Attributes: GPXAttributes>(
        _ localname: UnsafeBufferPointer<UInt8>, _ attributes: Attributes, line: () -> Int
    ) -> Start {
        depth += 1
        if depth > Self.maxDepth { return .tooDeep }
        if !sawRoot {
            sawRoot = true
            rootName = String(decoding: localname, as: UTF8.self)
            guard rootName == "gpx" else { return .wrongRoot }
            version = attributes.value(of: "version").map { String(decoding: $0, as: UTF8.self) }
            return .going
        }
        if point != nil {
            // A child of a point: only a few carry text we keep.
            if Self.name(localname, is: "ele") {
                field = .ele
            } else if Self.name(localname, is: "time") {
                field = .time
            } else if Self.name(localname, is: "hdop") {
                field = .hdop
            } else if Self.name(localname, is: "hAcc") || Self.name(localname, is: "horizontalAccuracy")
                || Self.name(localname, is: "hacc") || Self.name(localname, is: "accuracy")
            {
                field = .accuracy
            } else {
                field = .none
            }
            textCount = 0
            return .going
        }
        let kind: GPXPoint.Kind
        if Self.name(localname, is: "trkpt") {
            kind = .track
        } else if Self.name(localname, is: "rtept") {
            kind = .route
        } else if Self.name(localname, is: "wpt") {
            kind = .waypoint
        } else {
            if Self.name(localname, is: "trk") {
                emit(.trackStart)
            } else if Self.name(localname, is: "trkseg") {
                emit(.segmentStart)
            } else if Self.name(localname, is: "rte") {
                emit(.routeStart)
            }
            return .going
        }
        let lat = attributes.value(of: "lat").flatMap(DecimalNumber.parse)
        let lon = attributes.value(of: "lon").flatMap(DecimalNumber.parse)
        problem = nil
        if lat == nil || lon == nil {
            problem = "no valid lat/lon attributes"
        } else if !(abs(lat!) <= 90 && abs(lon!) <= 180) {
            problem = "latitude or longitude out of range"
        }
        point = GPXPoint(kind: kind, latitude: lat ?? 0, longitude: lon ?? 0, line: line())
        field = .none
        return .going
    }

    /// Text inside the current element, in one piece or several.
    @inline(__always)
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard field != .none, textCount < Self.maxText else { return }
        let count = min(bytes.count, Self.textCapacity - textCount)
        if count > 0 { memcpy(text + textCount, bytes.baseAddress!, count) }
        textCount += count
    }

    @inline(__always)
    mutating func end(_ localname: UnsafeBufferPointer<UInt8>) {
        depth -= 1
        guard point != nil else { return }
        if Self.name(localname, is: "trkpt") || Self.name(localname, is: "rtept")
            || Self.name(localname, is: "wpt")
        {
            let done = point!
            point = nil
            field = .none
            if let problem {
                emit(.skipped(line: done.line, reason: problem))
            } else {
                emit(.point(done))
            }
            return
        }
        guard field != .none else { return }
        do {
            let text = UnsafeBufferPointer(start: text, count: textCount)
            switch field {
            case .ele: point?.elevationMeters = DecimalNumber.parse(text)
            case .time: point?.time = GPXTime.parse(Self.trimmed(text))
            case .hdop: point?.hdop = DecimalNumber.parse(text).flatMap { $0 >= 0 ? $0 : nil }
            case .accuracy:
                point?.horizontalAccuracyMeters = DecimalNumber.parse(text).flatMap { $0 >= 0 ? $0 : nil }
            case .none: break
            }
        }
        field = .none
    }

    static func trimmed(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = buffer.count
        while start < end,
            buffer[start] == 0x20 || buffer[start] == 0x0A || buffer[start] == 0x0D || buffer[start] == 0x09
        { start += 1 }
        while end > start,
            buffer[end - 1] == 0x20 || buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D
                || buffer[end - 1] == 0x09
        { end -= 1 }
        return UnsafeBufferPointer(rebasing: buffer[start..<end])
    }
}

/// The attributes of the element just started, by local name (namespace declarations excluded).
protocol GPXAttributes {
    func value(of name: StaticString) -> UnsafeBufferPointer<UInt8>?
}
