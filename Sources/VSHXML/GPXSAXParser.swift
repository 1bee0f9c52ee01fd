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
        var builder: GPXBuilder
        var errorMessage: String?
        var errorLine = 0
        var context: xmlParserCtxtPtr?

        init(handle: @escaping (GPXEvent) throws -> Void) {
            builder = GPXBuilder(handle: handle)
        }

        var line: Int { context.map { Int(vsh_xmlSAX2GetLineNumber($0)) } ?? 0 }

        /// Stops the parser when the handler threw.
        mutating func stopIfThrown() {
            if builder.thrown != nil, let context { vsh_xmlStopParser(context) }
        }
    }

    /// libxml2's attributes: localname, prefix, URI, value start, value end, for each.
    struct Attributes: GPXAttributes {
        let list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
        let count: Int

        func value(of wanted: StaticString) -> UnsafeBufferPointer<UInt8>? {
            guard let list else { return nil }
            for i in 0..<count {
                guard let local = list[i * 5],
                    GPXBuilder.name(UnsafeBufferPointer(start: local, count: strlen(local)), is: wanted),
                    let start = list[i * 5 + 3],
                    let end = list[i * 5 + 4]
                else { continue }
                return UnsafeBufferPointer(start: start, count: end - start)
            }
            return nil
        }
    }

    /// Reads the open file `file` (at its start) for `path`.
    static func read(file: Int32, path: String, _ handle: (GPXEvent) throws -> Void) throws -> String? {
        XMLLibrary.loaded
        return try withoutActuallyEscaping(handle) { escapable in
            let pointer = UnsafeMutablePointer<State>.allocate(capacity: 1)
            pointer.initialize(to: State(handle: escapable))
            defer {
                pointer.pointee.builder.release()
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
                let state = context.assumingMemoryBound(to: State.self)
                state.pointee.builder.end(UnsafeBufferPointer(start: localname, count: strlen(localname)))
                state.pointee.stopIfThrown()
            }
            sax.characters = { context, characters, length in
                guard let context, let characters else { return }
                context.assumingMemoryBound(to: State.self).pointee.builder.characters(
                    UnsafeBufferPointer(start: characters, count: Int(length)))
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
            guard let context = vsh_xmlCreatePushParserCtxt(&sax, pointer, nil, 0, path) else {
                throw XMLFileError.unreadable(file: path)
            }
            defer { vsh_xmlFreeParserCtxt(context) }
            pointer.pointee.context = context
            let state = pointer
            _ = vsh_xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
            var total = 0
            var attributeGuard = AttributeGuard()
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
            defer { chunk.deallocate() }
            while state.pointee.builder.thrown == nil && state.pointee.errorMessage == nil {
                let count = try GPXFile.read(file, into: chunk, at: total, path: path)
                let data = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
                total += count
                let terminate: Int32 = count == 0 ? 1 : 0
                guard attributeGuard.scan(data) else {
                    throw XMLFileError.malformed(
                        file: path, line: max(1, Int(vsh_xmlSAX2GetLineNumber(context))),
                        message: "an element with more than \(AttributeGuard.maxAttributes) attributes")
                }
                let code = vsh_xmlParseChunk(
                    context, data.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), terminate)
                // Some failures (text that cannot be converted from its declared encoding) reach no
                // error callback: the parser just stops. They are errors all the same.
                if code != 0 && state.pointee.builder.thrown == nil && state.pointee.errorMessage == nil {
                    state.pointee.errorLine = max(1, Int(vsh_xmlSAX2GetLineNumber(context)))
                    state.pointee.errorMessage = Self.message(forCode: code)
                }
                if count == 0 { break }
            }
            if let thrown = state.pointee.builder.thrown { throw thrown }
            if let message = state.pointee.errorMessage {
                let root = state.pointee.builder.rootName
                if !root.isEmpty && root != "gpx" {
                    throw XMLFileError.wrongRoot(file: path, expected: "gpx", root: root)
                }
                throw XMLFileError.malformed(file: path, line: state.pointee.errorLine, message: message)
            }
            guard state.pointee.builder.sawRoot else {
                throw XMLFileError.malformed(
                    file: path, line: 1,
                    message: total == 0 ? "the file is empty" : "the file has no XML element")
            }
            return state.pointee.builder.version
        }
    }

    /// Counts the attributes of each tag before libxml2 sees it: libxml2 2.9 checks an element's
    /// attributes for duplicates pairwise, so one tag with 300,000 attributes (3 MB) took 18 s.
    struct AttributeGuard {
        static let maxAttributes = 1_000
        var insideTag = false
        var equals = 0

        /// False when a tag in `data` (or one that began in an earlier chunk) has too many attributes.
        mutating func scan(_ data: UnsafeRawBufferPointer) -> Bool {
            for byte in data {
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

    /// What an error code from `xmlParseChunk` that no callback explained means.
    static func message(forCode code: Int32) -> String {
        switch code {
        case 31, 32, 81, 1544, 6000...6004: return "the text cannot be converted from its declared encoding"
        default: return "the XML parser stopped (libxml2 error \(code))"
        }
    }

    static func start(
        _ state: inout State, _ localname: UnsafePointer<xmlChar>, _ attributeCount: Int,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        let context = state.context
        let outcome = state.builder.start(
            UnsafeBufferPointer(start: localname, count: strlen(localname)),
            Attributes(list: attributes, count: attributeCount),
            line: { context.map { Int(vsh_xmlSAX2GetLineNumber($0)) } ?? 0 })
        switch outcome {
        case .going: state.stopIfThrown()
        case .tooDeep:
            if state.errorMessage == nil {
                state.errorMessage = "elements nested deeper than \(GPXBuilder.maxDepth) levels"
                if let context {
                    state.errorLine = Int(vsh_xmlSAX2GetLineNumber(context))
                    vsh_xmlStopParser(context)
                }
            }
        case .wrongRoot:
            state.errorMessage = "wrong root"
            if let context { vsh_xmlStopParser(context) }
        }
    }
}

/// The open GPX file, read with `pread(2)` at the reader's own offsets (the file's position is
/// never moved, so readers of one file do not disturb each other).
enum GPXFile {
    /// Fills as much of `buffer` as the file has from `offset` on; 0 at its end.
    static func read(
        _ file: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String
    ) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = pread(file, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled))
            if got < 0 {
                if errno == EINTR { continue }
                throw XMLFileError.unreadable(file: path)
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }
}
