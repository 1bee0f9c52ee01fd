internal import CLibXML2
import Foundation
import VSHCore

/// GPX through libxml2's SAX2 push parser, fed 256 KiB at a time.
///
/// Why SAX and not `xmlTextReader`: libxml2 itself parses a 140 MB,
/// million-point file in 0.3 s; the reader interface, which builds a node per
/// element, took 6 s. Element names are compared as bytes, numbers parsed with
/// `strtod` and times from the raw buffer, so a point costs no allocation.
enum GPXSAXParser {
    static let chunkSize = 1 << 18

    /// The parse's state, reached from libxml2's C callbacks through the context's
    /// user data: a struct behind a pointer, so the callbacks mutate it without
    /// reference counting or dynamic exclusivity checks (a class's were 20 % of the time).
    struct State {
        let handle: (GPXEvent) throws -> Void
        var thrown: (any Error)?
        var errorMessage: String?
        var errorLine = 0
        var context: xmlParserCtxtPtr?
        var sawRoot = false
        var rootName = ""
        /// How deep the current element is; GPX needs 6 levels, extensions a few more.
        var depth = 0
        var version: String?
        var point: GPXPoint?
        var problem: String?
        var field: Field = .none
        var text: [UInt8] = []

        enum Field { case none, ele, time, hdop, accuracy }

        init(handle: @escaping (GPXEvent) throws -> Void) {
            self.handle = handle
            text.reserveCapacity(64)
        }

        mutating func emit(_ event: GPXEvent) {
            guard thrown == nil else { return }
            do { try handle(event) } catch {
                thrown = error
                if let context { xmlStopParser(context) }
            }
        }

        var line: Int { context.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }
    }

    static func read(path: String, _ handle: (GPXEvent) throws -> Void) throws -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            RegularFile.check(path), let file = FileHandle(forReadingAtPath: path)
        else { throw XMLFileError.unreadable(file: path) }
        defer { try? file.close() }
        return try withoutActuallyEscaping(handle) { escapable in
            let pointer = UnsafeMutablePointer<State>.allocate(capacity: 1)
            pointer.initialize(to: State(handle: escapable))
            defer {
                pointer.deinitialize(count: 1)
                pointer.deallocate()
            }
            var sax = xmlSAXHandler()
            sax.initialized = UInt32(XML_SAX2_MAGIC)
            sax.startElementNs = { context, localname, _, _, _, _, attributeCount, _, attributes in
                guard let context, let localname else { return }
                GPXSAXParser.start(
                    &context.assumingMemoryBound(to: State.self).pointee, localname, Int(attributeCount),
                    attributes)
            }
            sax.endElementNs = { context, localname, _, _ in
                guard let context, let localname else { return }
                GPXSAXParser.end(&context.assumingMemoryBound(to: State.self).pointee, localname)
            }
            sax.characters = { context, characters, length in
                guard let context, let characters else { return }
                let state = context.assumingMemoryBound(to: State.self)
                guard state.pointee.field != .none, state.pointee.text.count < 256 else { return }
                state.pointee.text.append(
                    contentsOf: UnsafeBufferPointer(start: characters, count: Int(length)))
            }
            sax.cdataBlock = sax.characters
            sax.serror = { context, error in
                guard let context, let error else { return }
                let state = context.assumingMemoryBound(to: State.self)
                // Warnings are not failures; the first error is what the organiser needs.
                guard error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue,
                    state.pointee.errorMessage == nil
                else { return }
                state.pointee.errorLine = Int(error.pointee.line)
                let message =
                    error.pointee.message.map {
                        String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)
                    } ?? "error"
                // libxml2's words for a name, attribute or text past its 10,000,000-byte limit.
                state.pointee.errorMessage =
                    message.contains("Huge input lookup") || message.contains("too long")
                    ? "a name, attribute or text longer than 10,000,000 bytes" : message
            }
            let savedHandler = vsh_xml_silence()
            defer { vsh_xml_restore(savedHandler) }
            guard let context = xmlCreatePushParserCtxt(&sax, pointer, nil, 0, path) else {
                throw XMLFileError.unreadable(file: path)
            }
            defer { xmlFreeParserCtxt(context) }
            pointer.pointee.context = context
            let state = pointer
            _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
            var total = 0
            var attributeGuard = AttributeGuard()
            while state.pointee.thrown == nil && state.pointee.errorMessage == nil {
                let chunk = (try? file.read(upToCount: chunkSize)) ?? nil
                let data = chunk ?? Data()
                total += data.count
                let terminate: Int32 = data.isEmpty ? 1 : 0
                guard attributeGuard.scan(data) else {
                    throw XMLFileError.malformed(
                        file: path, line: max(1, Int(xmlSAX2GetLineNumber(context))),
                        message: "an element with more than \(AttributeGuard.maxAttributes) attributes")
                }
                let code = data.withUnsafeBytes { raw in
                    xmlParseChunk(
                        context, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count),
                        terminate)
                }
                // Some failures (text that cannot be converted from its declared encoding) reach no
                // error callback: the parser just stops. They are errors all the same.
                if code != 0 && state.pointee.thrown == nil && state.pointee.errorMessage == nil {
                    state.pointee.errorLine = max(1, Int(xmlSAX2GetLineNumber(context)))
                    state.pointee.errorMessage = Self.message(forCode: code)
                }
                if data.isEmpty { break }
            }
            if let thrown = state.pointee.thrown { throw thrown }
            if let message = state.pointee.errorMessage {
                if !state.pointee.rootName.isEmpty && state.pointee.rootName != "gpx" {
                    throw XMLFileError.wrongRoot(file: path, expected: "gpx", root: state.pointee.rootName)
                }
                throw XMLFileError.malformed(file: path, line: state.pointee.errorLine, message: message)
            }
            guard state.pointee.sawRoot else {
                throw XMLFileError.malformed(
                    file: path, line: 1,
                    message: total == 0 ? "the file is empty" : "the file has no XML element")
            }
            return state.pointee.version
        }
    }

    /// Counts the attributes of each tag before libxml2 sees it: libxml2 2.9 checks an element's
    /// attributes for duplicates pairwise, so one tag with 300,000 attributes (3 MB) took 18 s.
    struct AttributeGuard {
        static let maxAttributes = 1_000
        var insideTag = false
        var equals = 0

        /// False when a tag in `data` (or one that began in an earlier chunk) has too many attributes.
        mutating func scan(_ data: Data) -> Bool {
            data.withUnsafeBytes { raw in
                for byte in raw {
                    switch byte {
                    case UInt8(ascii: "<"):
                        insideTag = true
                        equals = 0
                    case UInt8(ascii: ">"): insideTag = false
                    case UInt8(ascii: "=") where insideTag:
                        equals += 1
                        if equals > Self.maxAttributes { return false }
                    default: break
                    }
                }
                return true
            }
        }
    }

    /// What an error code from `xmlParseChunk` that no callback explained means.
    static func message(forCode code: Int32) -> String {
        switch code {
        case 31, 32, 81, 1544, 6000...6004: return "the text cannot be converted from its declared encoding"
        default: return "the XML parser stopped (libxml2 error \(code))"
        }
    }

    /// Whether a NUL-terminated name equals a literal.
    @inline(__always)
    static func name(_ pointer: UnsafePointer<xmlChar>, is literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        return memcmp(pointer, literal.utf8Start, count) == 0 && pointer[count] == 0
    }

    /// Deeper than this is not a GPX file but an attack on whoever reads it.
    static let maxDepth = 256

    static func start(
        _ state: inout State, _ localname: UnsafePointer<xmlChar>, _ attributeCount: Int,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        state.depth += 1
        if state.depth > maxDepth {
            if state.errorMessage == nil {
                state.errorMessage = "elements nested deeper than \(maxDepth) levels"
                if let context = state.context {
                    state.errorLine = Int(xmlSAX2GetLineNumber(context))
                    xmlStopParser(context)
                }
            }
            return
        }
        if !state.sawRoot {
            state.sawRoot = true
            state.rootName = String(cString: localname)
            guard state.rootName == "gpx" else {
                state.errorMessage = "wrong root"
                if let context = state.context { xmlStopParser(context) }
                return
            }
            state.version = attribute(attributes, attributeCount, "version").map {
                String(decoding: $0, as: UTF8.self)
            }
            return
        }
        if state.point != nil {
            // A child of a point: only a few carry text we keep.
            if name(localname, is: "ele") {
                state.field = .ele
            } else if name(localname, is: "time") {
                state.field = .time
            } else if name(localname, is: "hdop") {
                state.field = .hdop
            } else if name(localname, is: "hAcc") || name(localname, is: "horizontalAccuracy")
                || name(localname, is: "hacc") || name(localname, is: "accuracy")
            {
                state.field = .accuracy
            } else {
                state.field = .none
            }
            state.text.removeAll(keepingCapacity: true)
            return
        }
        let kind: GPXPoint.Kind
        if name(localname, is: "trkpt") {
            kind = .track
        } else if name(localname, is: "rtept") {
            kind = .route
        } else if name(localname, is: "wpt") {
            kind = .waypoint
        } else {
            if name(localname, is: "trk") {
                state.emit(.trackStart)
            } else if name(localname, is: "trkseg") {
                state.emit(.segmentStart)
            } else if name(localname, is: "rte") {
                state.emit(.routeStart)
            }
            return
        }
        let lat = attributeNumber(attributes, attributeCount, "lat")
        let lon = attributeNumber(attributes, attributeCount, "lon")
        state.problem = nil
        if lat == nil || lon == nil {
            state.problem = "no valid lat/lon attributes"
        } else if !(abs(lat!) <= 90 && abs(lon!) <= 180) {
            state.problem = "latitude or longitude out of range"
        }
        state.point = GPXPoint(kind: kind, latitude: lat ?? 0, longitude: lon ?? 0, line: state.line)
        state.field = .none
    }

    static func end(_ state: inout State, _ localname: UnsafePointer<xmlChar>) {
        state.depth -= 1
        guard state.point != nil else { return }
        if name(localname, is: "trkpt") || name(localname, is: "rtept") || name(localname, is: "wpt") {
            let done = state.point!
            state.point = nil
            state.field = .none
            if let problem = state.problem {
                state.emit(.skipped(line: done.line, reason: problem))
            } else {
                state.emit(.point(done))
            }
            return
        }
        guard state.field != .none else { return }
        let text = state.text
        switch state.field {
        case .ele: state.point?.elevationMeters = number(text[...])
        case .time: state.point?.time = text.withUnsafeBufferPointer { GPXTime.parse(trimmed($0)) }
        case .hdop: state.point?.hdop = number(text[...]).flatMap { $0 >= 0 ? $0 : nil }
        case .accuracy:
            state.point?.horizontalAccuracyMeters = number(text[...]).flatMap { $0 >= 0 ? $0 : nil }
        case .none: break
        }
        state.field = .none
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

    /// An attribute's value bytes (SAX2 passes localname, prefix, URI, value start, value end).
    static func attribute(
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ count: Int, _ wanted: StaticString
    ) -> ArraySlice<UInt8>? {
        guard let attributes else { return nil }
        for i in 0..<count {
            guard let local = attributes[i * 5], name(local, is: wanted), let start = attributes[i * 5 + 3],
                let end = attributes[i * 5 + 4]
            else { continue }
            return Array(UnsafeBufferPointer(start: start, count: end - start))[...]
        }
        return nil
    }

    /// An attribute's value as a number, read in place (no copy).
    static func attributeNumber(
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ count: Int, _ wanted: StaticString
    ) -> Double? {
        guard let attributes else { return nil }
        for i in 0..<count {
            guard let local = attributes[i * 5], name(local, is: wanted), let start = attributes[i * 5 + 3],
                let end = attributes[i * 5 + 4]
            else { continue }
            return number(UnsafeBufferPointer(start: start, count: end - start))
        }
        return nil
    }

    /// A finite decimal number from bytes (digits, sign, point, exponent only).
    static func number(_ bytes: ArraySlice<UInt8>) -> Double? { DecimalNumber.parse(bytes) }

    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? { DecimalNumber.parse(bytes) }
}
