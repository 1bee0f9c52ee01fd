import Foundation
import VSHCore

/// GPX read by scanning its bytes, for files in the plain form that loggers, phones and apps
/// write: UTF-8, elements, attributes, text and comments. It calls the same `GPXBuilder` as the
/// libxml2 reader, so a file it reads gives the same events, lines included.
///
/// It checks what it reads as strictly as libxml2 does, and for anything outside that plain
/// form (a DOCTYPE or entity, CDATA, a processing instruction, another encoding or a byte
/// order mark, a name that is not ASCII, an undeclared namespace prefix, a lone carriage
/// return, a malformed document, a tag or text over 1 MiB) it declines instead of judging:
/// `GPXReader` then reads the file again with libxml2, which gives the answer or the error.
///
/// Why: libxml2's SAX parser, its callbacks and the attribute guard were two thirds of
/// `vsh gpx`'s time on a 100,000-point walk.
struct GPXByteScanner {
    /// What a scan came to.
    enum Outcome: Equatable {
        case read
        /// Not read: why, in a few words (tests and the fuzzer print it).
        case declined(String)
        /// The scan reached or passed `stopAt` (a segment of a scan in parallel ended).
        case stopped
        /// A scan in parallel could not join its segments: the events are void, and the
        /// file is scanned again from its start in one piece (`GPXReader`).
        case unsettled
    }

    /// Bytes read at a time; also the longest tag, comment or text the scanner takes.
    static let bufferSize = 1 << 20
    /// How far past `stopAt` a read goes.
    static let pastStop = 1 << 14
    /// The most attributes on one element (libxml2 checks more, slowly: see `AttributeGuard`).
    static let maxAttributes = 32
    /// The most namespace prefixes in scope at once (GPX files declare two to five).
    static let maxPrefixes = 64
    /// Longer names are left to libxml2 (its limit is 50,000 bytes).
    static let maxName = 1_000
    /// A field's text (`ele`, `time`, ...) longer than this is left to libxml2, whose callbacks
    /// hand text over in pieces that `GPXBuilder.maxText` cuts at a piece's edge.
    static let maxFieldText = 200

    /// The byte classes the loops over comments and names dispatch on (text and attribute values
    /// are checked by ranges).
    enum Class: UInt8 {
        /// A tab or printable ASCII that means nothing to a comment or a name.
        case plain = 0
        case newline, carriageReturn, dash, colon
        /// A byte that may start an XML name or continue one.
        case nameStart, nameDigit
        /// 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F: never allowed in XML 1.0.
        case control
        /// 0x80 and above: a UTF-8 sequence to check.
        case high
    }

    static let classes: [Class] = (0...255).map { (b: Int) -> Class in
        switch b {
        case 0x0A: return .newline
        case 0x0D: return .carriageReturn
        case 0x09: return .plain
        case 0x00...0x1F: return .control
        case 0x2D: return .dash
        case 0x3A: return .colon
        case 0x41...0x5A, 0x61...0x7A, 0x5F: return .nameStart
        case 0x30...0x39, 0x2E: return .nameDigit
        case 0x80...0xFF: return .high
        default: return .plain
        }
    }

    /// Why an item could not be taken from the bytes at hand.
    enum Stop: Error {
        /// The item runs past the bytes read so far.
        case needMore
        /// Not the plain form: libxml2 reads the file.
        case decline(String)
    }

    enum Phase { case prolog, root, epilog }

    // The bytes read and not yet taken: buffer[position..<filled].
    let buffer: UnsafeMutablePointer<UInt8>
    var filled = 0
    var position = 0
    var endOfFile = false
    /// The file's offset of buffer[0].
    var offset = 0
    /// The scan stops once it has taken the item that reaches this file offset (`.stopped`).
    var stopAt = Int.max
    var line = 1
    var phase = Phase.prolog
    /// Open elements' qualified names, one after the other (`nameStarts[k]` is where the k-th
    /// begins; the last ends at `namesEnd`): raw memory, as pushing and popping names is done
    /// for every element.
    let names: UnsafeMutablePointer<UInt8>
    var namesEnd = 0
    let nameStarts: UnsafeMutablePointer<Int>
    /// Where each open name's local part starts, from the name's start.
    let localOffsets: UnsafeMutablePointer<Int>
    var depth = 0
    static let namesCapacity = 1 << 16
    /// Declared namespace prefixes in scope, with the depth of the element that declared them.
    var prefixes: [(name: [UInt8], depth: Int)] = []
    /// The current tag's attributes, as offsets into the buffer.
    let attributes: UnsafeMutablePointer<AttributeSpan>
    var attributeCount = 0
    let table: UnsafeMutablePointer<Class>

    struct AttributeSpan {
        var name: Int
        var nameEnd: Int
        /// Where the local name starts (after the prefix's colon).
        var local: Int
        var value: Int
        var valueEnd: Int
        var isNamespace: Bool
    }

    init() {
        buffer = .allocate(capacity: Self.bufferSize)
        attributes = .allocate(capacity: Self.maxAttributes)
        table = .allocate(capacity: 256)
        table.initialize(from: Self.classes, count: 256)
        names = .allocate(capacity: Self.namesCapacity)
        nameStarts = .allocate(capacity: GPXBuilder.maxDepth + 1)
        localOffsets = .allocate(capacity: GPXBuilder.maxDepth + 1)
    }

    func release() {
        names.deallocate()
        nameStarts.deallocate()
        localOffsets.deallocate()
        buffer.deallocate()
        attributes.deallocate()
        table.deallocate()
    }

    /// Reads the open file `file` (at its start) into `builder`. Throws the handler's error
    /// or a read error; declining is an outcome, not an error.
    static func scan(file: Int32, path: String, into builder: inout GPXBuilder) throws -> Outcome {
        var scanner = GPXByteScanner()
        defer { scanner.release() }
        return try scanner.run(file: file, path: path, builder: &builder)
    }

    mutating func run(file: Int32, path: String, builder: inout GPXBuilder) throws -> Outcome {
        try fill(file: file, path: path)
        while true {
            do {
                if position == filled {
                    guard endOfFile else {
                        try fill(file: file, path: path)
                        continue
                    }
                    guard phase == .epilog else {
                        return .declined(
                            phase == .prolog ? "no root element" : "the file ends inside an element")
                    }
                    return .read
                }
                try item(&builder)
                if let thrown = builder.thrown { throw thrown }
                if offset + position >= stopAt { return .stopped }
            } catch let stop as Stop {
                switch stop {
                case .decline(let reason): return .declined(reason)
                case .needMore:
                    if endOfFile { return .declined("the file ends inside markup") }
                    if position == 0 && filled == Self.bufferSize {
                        return .declined("a tag, comment or text longer than 1 MiB")
                    }
                    try fill(file: file, path: path)
                }
            }
        }
    }

    /// Moves the bytes not yet taken to the front and reads more after them, at their place in
    /// the file (`pread`: the scans of a file's segments share its descriptor).
    mutating func fill(file: Int32, path: String) throws {
        let kept = filled - position
        if position > 0 && kept > 0 { memmove(buffer, buffer + position, kept) }
        offset += position
        position = 0
        filled = kept
        var count = Self.bufferSize - filled
        // A segment's scan reads little past its end (more only for an item that crosses it).
        let toStop = stopAt - (offset + filled)
        if stopAt != Int.max && toStop > 0 { count = min(count, toStop + Self.pastStop) }
        let room = UnsafeMutableRawBufferPointer(start: buffer + filled, count: count)
        let got = try GPXFile.read(file, into: room, at: offset + filled, path: path)
        filled += got
        if got < room.count { endOfFile = true }
    }

    // MARK: Items

    /// Takes one item (text, a tag, a comment, the XML declaration) at `position`, all of it
    /// or nothing: an item cut by the buffer's end is taken again once more is read.
    mutating func item(_ builder: inout GPXBuilder) throws {
        if buffer[position] != 0x3C {
            try text(&builder)
            return
        }
        let next = try byte(position + 1)
        switch next {
        case 0x2F:
            guard phase == .root else { throw Stop.decline("an end tag outside the root") }
            try endTag(&builder)
        case 0x21: try comment()
        case 0x3F:
            guard offset + position == 0 else { throw Stop.decline("a processing instruction") }
            try declaration()
        default:
            guard phase != .epilog else { throw Stop.decline("a second root element") }
            try startTag(&builder)
        }
    }

    @inline(__always)
    mutating func byte(_ index: Int) throws -> UInt8 {
        guard index < filled else { throw Stop.needMore }
        return buffer[index]
    }

    @inline(__always)
    mutating func kind(_ b: UInt8) -> Class { table[Int(b)] }

    /// Text up to the next `<`, in one pass: checked, lines counted, and a field's handed to
    /// the builder. Outside the root only blanks are allowed.
    mutating func text(_ builder: inout GPXBuilder) throws {
        let start = position
        let blanksOnly = phase != .root
        let limit = filled
        var lines = 0
        var carriageReturn = false
        var i = start
        while i < limit {
            let b = buffer[i]
            if b == 0x3C { break }
            // Printable ASCII but `&` and `]`: nearly every byte.
            if b >= 0x20 && b < 0x7F && b != 0x26 && b != 0x5D {
                if blanksOnly && b != 0x20 { throw Stop.decline("text outside the root") }
                i += 1
                continue
            }
            switch b {
            case 0x0A:
                lines += 1
                i += 1
            case 0x09: i += 1
            case 0x0D:
                guard i + 1 < limit else {
                    throw endOfFile ? Stop.decline("a lone carriage return") : Stop.needMore
                }
                guard buffer[i + 1] == 0x0A else { throw Stop.decline("a lone carriage return") }
                carriageReturn = true
                i += 1
            case 0x5D:
                if blanksOnly { throw Stop.decline("text outside the root") }
                guard i + 2 < limit || endOfFile else { throw Stop.needMore }
                if i + 2 < limit, buffer[i + 1] == 0x5D, buffer[i + 2] == 0x3E {
                    throw Stop.decline("]]> in text")
                }
                i += 1
            case 0x26: throw Stop.decline("an entity or character reference")
            case 0x7F:
                if blanksOnly { throw Stop.decline("text outside the root") }
                i += 1
            case 0x80...0xFF:
                if blanksOnly { throw Stop.decline("text outside the root") }
                guard i + 4 <= limit || endOfFile else { throw Stop.needMore }
                i += try utf8Sequence(i, limit)
            default: throw Stop.decline("a control character")
            }
        }
        if i == limit {
            // No `<` yet: more to read, or the end of the file (after the root: blanks, checked above).
            guard endOfFile, phase == .epilog else { throw Stop.needMore }
        } else if !blanksOnly && builder.field != .none {
            if builder.textCount + (i - start) > Self.maxFieldText { throw Stop.decline("a long field") }
            if carriageReturn { throw Stop.decline("a carriage return in a field") }
            builder.characters(UnsafeBufferPointer(start: buffer + start, count: i - start))
        }
        line += lines
        position = i
    }

    /// The length of the valid UTF-8 sequence of an XML character at buffer[i] (before `end`).
    mutating func utf8Sequence(_ i: Int, _ end: Int) throws -> Int {
        let lead = buffer[i]
        let length: Int
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            scalar = UInt32(lead & 0x07)
        default: throw Stop.decline("bytes that are not UTF-8")
        }
        guard i + length <= end else { throw Stop.decline("bytes that are not UTF-8") }
        for k in 1..<length {
            let b = buffer[i + k]
            guard b & 0xC0 == 0x80 else { throw Stop.decline("bytes that are not UTF-8") }
            scalar = scalar << 6 | UInt32(b & 0x3F)
        }
        // Overlong forms, surrogates, past U+10FFFF, and U+FFFE/U+FFFF (not XML characters).
        let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard scalar >= smallest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar), scalar != 0xFFFE,
            scalar != 0xFFFF
        else { throw Stop.decline("bytes that are not UTF-8") }
        return length
    }

    /// `<!-- ... -->`; anything else after `<!` (a DOCTYPE, CDATA) is declined.
    mutating func comment() throws {
        let start = position
        guard try byte(start + 2) == 0x2D, try byte(start + 3) == 0x2D else {
            throw Stop.decline("a DOCTYPE or CDATA section")
        }
        var i = start + 4
        var lines = 0
        while true {
            let b = try byte(i)
            switch kind(b) {
            case .dash:
                if try byte(i + 1) == 0x2D {
                    guard try byte(i + 2) == 0x3E else { throw Stop.decline("-- inside a comment") }
                    line += lines
                    position = i + 3
                    return
                }
                i += 1
            case .newline:
                lines += 1
                i += 1
            case .carriageReturn:
                guard try byte(i + 1) == 0x0A else { throw Stop.decline("a lone carriage return") }
                i += 1
            case .control: throw Stop.decline("a control character")
            case .high:
                // A sequence cut by the buffer's end waits for more.
                guard i + 4 <= filled || endOfFile else { throw Stop.needMore }
                i += try utf8Sequence(i, filled)
            default: i += 1
            }
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` at the file's first byte: the
    /// version 1.0, and UTF-8 if an encoding is named.
    mutating func declaration() throws {
        pendingLines = 0
        var i = position + 2
        for expected in Array("xml".utf8) {
            guard try byte(i) == expected else { throw Stop.decline("a processing instruction") }
            i += 1
        }
        var seen = 0  // 1 version, 2 encoding, 3 standalone
        while true {
            let blanks = try skipBlanks(&i)
            if try byte(i) == 0x3F {
                guard try byte(i + 1) == 0x3E, seen >= 1 else {
                    throw Stop.decline("an unusual XML declaration")
                }
                line += pendingLines
                position = i + 2
                return
            }
            guard blanks > 0 else { throw Stop.decline("an unusual XML declaration") }
            let nameStart = i
            while try kind(byte(i)) == .nameStart { i += 1 }
            let name = String(
                decoding: UnsafeBufferPointer(start: buffer + nameStart, count: i - nameStart), as: UTF8.self)
            let quote = try equalsAndQuote(
                &i, noEquals: "an unusual XML declaration", noQuote: "an unusual XML declaration")
            let valueStart = i
            while try byte(i) != quote {
                guard buffer[i] != 0x3C, buffer[i] < 0x80 else {
                    throw Stop.decline("an unusual XML declaration")
                }
                i += 1
            }
            let value = String(
                decoding: UnsafeBufferPointer(start: buffer + valueStart, count: i - valueStart),
                as: UTF8.self)
            i += 1
            switch (name, seen) {
            case ("version", 0) where value == "1.0": seen = 1
            case ("encoding", 1) where value.lowercased() == "utf-8": seen = 2
            case ("standalone", 1...2) where value == "yes" || value == "no": seen = 3
            default: throw Stop.decline("an XML declaration other than version 1.0 in UTF-8")
            }
        }
    }

    /// Skips blanks at buffer[i...], counting lines; returns how many there were.
    mutating func skipBlanks(_ i: inout Int) throws -> Int {
        let start = i
        var lines = 0
        while true {
            let b = try byte(i)
            if b == 0x20 || b == 0x09 {
                i += 1
            } else if b == 0x0A {
                lines += 1
                i += 1
            } else if b == 0x0D {
                guard try byte(i + 1) == 0x0A else { throw Stop.decline("a lone carriage return") }
                i += 1
            } else {
                break
            }
        }
        pendingLines += lines
        return i - start
    }

    /// `="` or `='`, blanks allowed around the `=`, at buffer[i...]: moves `i` past the opening
    /// quote and returns it.
    mutating func equalsAndQuote(_ i: inout Int, noEquals: String, noQuote: String) throws -> UInt8 {
        _ = try skipBlanks(&i)
        guard try byte(i) == 0x3D else { throw Stop.decline(noEquals) }
        i += 1
        _ = try skipBlanks(&i)
        let quote = try byte(i)
        guard quote == 0x22 || quote == 0x27 else { throw Stop.decline(noQuote) }
        i += 1
        return quote
    }

    /// Line breaks inside the item being read, counted once it is taken.
    var pendingLines = 0

    /// A name at buffer[i...]: ASCII letters, digits, `_ - .` and at most one colon, not first or
    /// last. Returns where it ends and where its local part begins.
    mutating func name(_ i: Int) throws -> (end: Int, local: Int) {
        guard try kind(byte(i)) == .nameStart else { throw Stop.decline("a name that is not plain ASCII") }
        var j = i + 1
        var colon = -1
        let limit = filled
        while j < limit {
            let c = table[Int(buffer[j])]
            if c == .nameStart || c == .nameDigit || c == .dash {
                j += 1
            } else if c == .colon {
                guard colon < 0 else { throw Stop.decline("a name with two colons") }
                colon = j
                j += 1
            } else {
                guard j - i <= Self.maxName else { throw Stop.decline("a very long name") }
                guard colon != j - 1 else { throw Stop.decline("a name ending in a colon") }
                if colon >= 0 {
                    guard kind(buffer[colon + 1]) == .nameStart else {
                        throw Stop.decline("a name that is not plain ASCII")
                    }
                }
                return (j, colon < 0 ? i : colon + 1)
            }
        }
        throw Stop.needMore
    }

    /// `<name attribute="value" ...>` or `<name .../>`.
    mutating func startTag(_ builder: inout GPXBuilder) throws {
        pendingLines = 0
        let start = position
        let (nameEnd, local) = try name(start + 1)
        var i = nameEnd
        attributeCount = 0
        var selfClosing = false
        // No prefix and no attribute that could declare one: no namespace to check.
        var plainNames = local == start + 1
        while true {
            let blanks = try skipBlanks(&i)
            let b = try byte(i)
            if b == 0x3E {
                i += 1
                break
            }
            if b == 0x2F {
                guard try byte(i + 1) == 0x3E else { throw Stop.decline("a malformed tag") }
                selfClosing = true
                i += 2
                break
            }
            guard blanks > 0 else { throw Stop.decline("a malformed tag") }
            guard attributeCount < Self.maxAttributes else { throw Stop.decline("many attributes") }
            let (attributeEnd, attributeLocal) = try name(i)
            if attributeLocal != i || buffer[i] == 0x78 { plainNames = false }
            var j = attributeEnd
            let quote = try equalsAndQuote(
                &j, noEquals: "an attribute without a value", noQuote: "an unquoted attribute")
            let valueStart = j
            while true {
                guard j < filled else { throw Stop.needMore }
                let v = buffer[j]
                if v == quote { break }
                if v >= 0x20 && v < 0x80 && v != 0x3C && v != 0x26 {
                    j += 1
                } else if v >= 0x80 {
                    guard j + 4 <= filled || endOfFile else { throw Stop.needMore }
                    j += try utf8Sequence(j, filled)
                } else {
                    // Tabs and line breaks libxml2 turns into spaces; `<`, `&` and controls.
                    throw Stop.decline("an attribute value libxml2 would change or refuse")
                }
            }
            attributes[attributeCount] = AttributeSpan(
                name: i, nameEnd: attributeEnd, local: attributeLocal, value: valueStart, valueEnd: j,
                isNamespace: false)
            attributeCount += 1
            i = j + 1
        }
        // The line libxml2 gives a start tag: where its attributes end.
        let tagLine = line + pendingLines
        if !plainNames {
            try checkNamespaces(elementName: start + 1, nameEnd, local)
        } else if attributeCount > 1 {
            try checkDuplicates()
        }
        if phase == .prolog { phase = .root }
        let depth = self.depth + 1
        let localName = UnsafeBufferPointer(start: buffer + local, count: nameEnd - local)
        let outcome = builder.start(
            localName, ScannedAttributes(buffer: buffer, spans: attributes, count: attributeCount),
            line: { tagLine })
        guard outcome == .going else { throw Stop.decline("not a GPX file, or nested too deep") }
        line = tagLine
        position = i
        if selfClosing {
            builder.end(localName)
            if !prefixes.isEmpty { dropPrefixes(above: depth - 1) }
            if depth == 1 { phase = .epilog }
        } else {
            let length = nameEnd - start - 1
            guard namesEnd + length <= Self.namesCapacity else { throw Stop.decline("very long names") }
            memcpy(names + namesEnd, buffer + start + 1, length)
            nameStarts[self.depth] = namesEnd
            localOffsets[self.depth] = local - start - 1
            namesEnd += length
            self.depth = depth
        }
    }

    /// Namespace declarations of the tag just read are put in scope; prefixes must be declared,
    /// and no two attributes may share a name (libxml2 refuses both).
    mutating func checkNamespaces(elementName: Int, _ nameEnd: Int, _ local: Int) throws {
        let depth = self.depth + 1
        for k in 0..<attributeCount {
            let a = attributes[k]
            let qname = UnsafeBufferPointer(start: buffer + a.name, count: a.nameEnd - a.name)
            let value = UnsafeBufferPointer(start: buffer + a.value, count: a.valueEnd - a.value)
            if GPXBuilder.name(qname, is: "xmlns") {
                attributes[k].isNamespace = true
                guard value.isEmpty || Self.plainNamespace(value) else {
                    throw Stop.decline("an unusual namespace name")
                }
            } else if a.local != a.name,
                GPXBuilder.name(
                    UnsafeBufferPointer(start: buffer + a.name, count: a.local - 1 - a.name), is: "xmlns")
            {
                attributes[k].isNamespace = true
                let prefix = UnsafeBufferPointer(start: buffer + a.local, count: a.nameEnd - a.local)
                guard !GPXBuilder.name(prefix, is: "xml"), !GPXBuilder.name(prefix, is: "xmlns"),
                    Self.plainNamespace(value)
                else { throw Stop.decline("an unusual namespace declaration") }
                // Each prefixed name is looked up among those in scope: a few are usual, many are left to libxml2.
                guard prefixes.count < Self.maxPrefixes else { throw Stop.decline("many namespace prefixes") }
                prefixes.append((Array(prefix), depth))
            }
        }
        try checkDuplicates()
        for k in 0..<attributeCount {
            let a = attributes[k]
            if !a.isNamespace && a.local != a.name {
                try checkPrefix(a.name, a.local - 1)
            }
        }
        if local != elementName { try checkPrefix(elementName, local - 1) }
    }

    /// Whether a namespace name is an absolute URI of the plain shape GPX files use
    /// (`http://www.topografix.com/GPX/1/1`), which libxml2 accepts as one: a scheme, then an
    /// optional `//host[:port]` (a port of at least one digit), then path, query and fragment characters without `%` or
    /// brackets. Not the XML or XMLNS namespaces, which only their own prefixes may name.
    static func plainNamespace(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        func letter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        func unreserved(_ b: UInt8) -> Bool {
            letter(b) || digit(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
        }
        let text = String(decoding: value, as: UTF8.self)
        guard text != "http://www.w3.org/XML/1998/namespace", text != "http://www.w3.org/2000/xmlns/",
            let first = value.first, letter(first)
        else { return false }
        var i = 1
        while i < value.count,
            letter(value[i]) || digit(value[i]) || value[i] == 0x2B || value[i] == 0x2D
                || value[i] == 0x2E
        { i += 1 }
        guard i < value.count, value[i] == 0x3A else { return false }
        i += 1
        if i + 1 < value.count, value[i] == 0x2F, value[i + 1] == 0x2F {
            // The authority: a host name, then an optional port.
            i += 2
            let host = i
            while i < value.count, unreserved(value[i]) { i += 1 }
            guard i > host else { return false }
            if i < value.count, value[i] == 0x3A {
                i += 1
                let port = i
                while i < value.count, digit(value[i]) { i += 1 }
                guard i > port else { return false }
            }
            guard i == value.count || value[i] == 0x2F || value[i] == 0x3F || value[i] == 0x23 else {
                return false
            }
        }
        var fragment = false
        while i < value.count {
            let b = value[i]
            if b == 0x23 {
                guard !fragment else { return false }
                fragment = true
            } else if !(unreserved(b) || b == 0x2F || b == 0x3A || b == 0x40 || b == 0x21 || b == 0x24
                || b == 0x27
                || b == 0x28 || b == 0x29 || b == 0x2A || b == 0x2B || b == 0x2C || b == 0x3B || b == 0x3D
                || b == 0x3F)
            {
                return false
            }
            i += 1
        }
        return true
    }

    /// No two attributes of the tag share a name, or a local name (unless namespace declarations).
    mutating func checkDuplicates() throws {
        for k in 1..<max(1, attributeCount) {
            let a = attributes[k]
            for m in 0..<k {
                let b = attributes[m]
                let sameName =
                    a.nameEnd - a.name == b.nameEnd - b.name
                    && Self.same(buffer + a.name, buffer + b.name, a.nameEnd - a.name)
                let sameLocal =
                    !a.isNamespace && !b.isNamespace && a.nameEnd - a.local == b.nameEnd - b.local
                    && Self.same(buffer + a.local, buffer + b.local, a.nameEnd - a.local)
                if sameName || sameLocal { throw Stop.decline("two attributes of one name") }
            }
        }
    }

    /// A prefix at buffer[start..<end] must be declared in scope (`xml` is left to libxml2).
    mutating func checkPrefix(_ start: Int, _ end: Int) throws {
        let prefix = UnsafeBufferPointer(start: buffer + start, count: end - start)
        for declared in prefixes.reversed() where declared.name.count == prefix.count {
            if declared.name.withUnsafeBufferPointer({
                memcmp($0.baseAddress!, prefix.baseAddress!, prefix.count)
            })
                == 0
            {
                return
            }
        }
        throw Stop.decline("an undeclared namespace prefix")
    }

    mutating func dropPrefixes(above depth: Int) {
        while let last = prefixes.last, last.depth > depth { prefixes.removeLast() }
    }

    /// `</name>`, which must close the element open last: its name, compared in place.
    mutating func endTag(_ builder: inout GPXBuilder) throws {
        pendingLines = 0
        let start = position
        let openStart = nameStarts[depth - 1]
        let length = namesEnd - openStart
        var i = start + 2 + length
        guard i < filled else { throw Stop.needMore }
        guard Self.same(names + openStart, buffer + start + 2, length) else {
            throw Stop.decline("an end tag that does not match")
        }
        if buffer[i] != 0x3E {
            let after = buffer[i]
            guard after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D else {
                throw Stop.decline("an end tag that does not match")
            }
            _ = try skipBlanks(&i)
            guard try byte(i) == 0x3E else { throw Stop.decline("a malformed end tag") }
        }
        let local = localOffsets[depth - 1]
        builder.end(UnsafeBufferPointer(start: names + openStart + local, count: length - local))
        namesEnd = openStart
        depth -= 1
        if !prefixes.isEmpty { dropPrefixes(above: depth) }
        if depth == 0 { phase = .epilog }
        line += pendingLines
        position = i + 1
    }

    /// Whether two short byte runs are equal (names: a call to `memcmp` cost more than the loop).
    @inline(__always)
    static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var k = 0
        while k < count {
            if a[k] != b[k] { return false }
            k += 1
        }
        return true
    }

    /// The scanned tag's attributes, for `GPXBuilder`.
    struct ScannedAttributes: GPXAttributes {
        let buffer: UnsafeMutablePointer<UInt8>
        let spans: UnsafeMutablePointer<AttributeSpan>
        let count: Int

        func value(of wanted: StaticString) -> UnsafeBufferPointer<UInt8>? {
            for k in 0..<count where !spans[k].isNamespace {
                let a = spans[k]
                if GPXBuilder.name(
                    UnsafeBufferPointer(start: buffer + a.local, count: a.nameEnd - a.local), is: wanted)
                {
                    return UnsafeBufferPointer(start: buffer + a.value, count: a.valueEnd - a.value)
                }
            }
            return nil
        }
    }
}
