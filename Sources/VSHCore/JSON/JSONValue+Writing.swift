extension JSONValue {
    /// The value as compact JSON on one line (for `--json` output, one object a line).
    public var compactText: String {
        var out = JSONBytes()
        write(to: &out, indent: nil, level: 0)
        return out.text()
    }

    /// The object as compact JSON, with member `key`'s value written as `text`, JSON made before
    /// (a check-in's answer holds the rules its row keeps). Any other value: `compactText`.
    public func compactText(member key: String, asText text: String) -> String {
        guard case .object(let object) = self, !object.members.isEmpty else { return compactText }
        var out = JSONBytes()
        out.append("{")
        for (i, member) in object.members.enumerated() {
            if i > 0 { out.append(",") }
            Self.writeString(member.key, to: &out)
            out.append(":")
            if member.key == key {
                out.append(string: text)
            } else {
                member.value.write(to: &out, indent: nil, level: 0)
            }
        }
        out.append("}")
        return out.text()
    }

    /// The value pretty-printed with two-space indentation. Arrays of numbers
    /// (positions) stay on one line so that a hunt file reads like a map.
    public var prettyText: String {
        var out = JSONBytes()
        write(to: &out, indent: "  ", level: 0)
        out.append("\n")
        return out.text()
    }

    /// The text is written as UTF-8 bytes and made a `String` once: appending to a `String` piece by
    /// piece (each piece checked for its encoding and counted) was 3.5 % of the server's CPU on
    /// device-fix check-ins, whose answers and stored rule details are written here.
    private func write(to out: inout JSONBytes, indent: String?, level: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .number(let value, _): Self.writeNumber(value, to: &out)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let elements):
            let flat = indent == nil || elements.allSatisfy { if case .number = $0 { true } else { false } }
            if elements.isEmpty {
                out.append("[]")
            } else if flat {
                out.append("[")
                for (i, element) in elements.enumerated() {
                    if i > 0 { out.append(indent == nil ? "," : ", ") }
                    element.write(to: &out, indent: indent, level: level + 1)
                }
                out.append("]")
            } else if let indent {
                out.append("[\n")
                for (i, element) in elements.enumerated() {
                    out.append(indent, times: level + 1)
                    element.write(to: &out, indent: indent, level: level + 1)
                    out.append(i + 1 < elements.count ? ",\n" : "\n")
                }
                out.append(indent, times: level)
                out.append("]")
            }
        case .object(let object):
            if object.members.isEmpty {
                out.append("{}")
            } else if let indent {
                out.append("{\n")
                for (i, member) in object.members.enumerated() {
                    out.append(indent, times: level + 1)
                    Self.writeString(member.key, to: &out)
                    out.append(": ")
                    member.value.write(to: &out, indent: indent, level: level + 1)
                    out.append(i + 1 < object.members.count ? ",\n" : "\n")
                }
                out.append(indent, times: level)
                out.append("}")
            } else {
                out.append("{")
                for (i, member) in object.members.enumerated() {
                    if i > 0 { out.append(",") }
                    Self.writeString(member.key, to: &out)
                    out.append(":")
                    member.value.write(to: &out, indent: nil, level: 0)
                }
                out.append("}")
            }
        }
    }

    /// Shortest text that reads back as the same double; integral values print
    /// without a fraction (`50`, not `50.0`).
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A number as `format` gives it; whole numbers written digit by digit.
    static func writeNumber(_ value: Double, to out: inout JSONBytes) {
        guard value == value.rounded(), abs(value) < 1e15 else {
            out.append(string: format(value))
            return
        }
        var whole = Int64(value)
        if whole < 0 {
            out.append(byte: 0x2D)
            whole = -whole
        }
        // Digits from the last, into 16 bytes (whole numbers here are below 10^15).
        var digits: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &digits) { room in
            var k = room.count
            repeat {
                k -= 1
                room[k] = 0x30 + UInt8(whole % 10)
                whole /= 10
            } while whole > 0
            out.append(UnsafeBufferPointer(rebasing: room.bindMemory(to: UInt8.self)[k...]))
        }
    }

    /// Whether the scalar whose first byte is `utf8[i]` (0xC2, 0xD8 or 0xE2, in valid UTF-8) is one
    /// `writeString` escapes beyond ASCII's: a C1 control (0xC2 0x80-0x9F), the Arabic letter mark
    /// U+061C (0xD8 0x9C), U+200E-200F, U+2028-202E (0xE2 0x80 ...) or U+2066-2069 (0xE2 0x81 ...).
    /// A rule's "±8 m" (0xC2 0xB1) is written whole.
    static func startsEscapedScalar(_ utf8: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        let second = utf8[i + 1]
        switch utf8[i] {
        case 0xC2: return second <= 0x9F
        case 0xD8: return second == 0x9C
        default:
            let third = utf8[i + 2]
            switch second {
            case 0x80: return third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third)
            case 0x81: return (0xA6...0xA9).contains(third)
            default: return false
            }
        }
    }

    static func writeString(_ value: String, to out: inout JSONBytes) {
        out.append("\"")
        // Most strings need no escape: append them whole (a batch of check-ins spent 5% of its
        // time appending rule details a scalar at a time). Besides ASCII's, the scalars escaped
        // are U+2028, U+2029, the C1 controls and the text-direction controls: JSON lines shown
        // on a terminal cannot carry a control that rewrites or reorders what it shows.
        var text = value
        let plain = text.withUTF8 { utf8 in
            for (i, byte) in utf8.enumerated()
            where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F
                || ((byte == 0xE2 || byte == 0xC2 || byte == 0xD8) && startsEscapedScalar(utf8, at: i))
            {
                return false
            }
            out.append(utf8)
            return true
        }
        if plain {
            out.append("\"")
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{2028}": out.append("\\u2028")
            case "\u{2029}": out.append("\\u2029")
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || scalar.properties.isBidiControl
                {
                    let hex = String(scalar.value, radix: 16)
                    out.append(string: "\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.append(scalar: scalar)
                }
            }
        }
        out.append("\"")
    }
}

/// The bytes of JSON text being written (see `JSONValue.write(to:indent:level:)`), in memory of
/// its own: most appends are one to a few bytes, and an array's checks on each cost more than them.
struct JSONBytes: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity = 512

    init() { start = .allocate(capacity: capacity) }

    deinit { start.deallocate() }

    mutating func append(byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        start[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: StaticString) {
        if text.utf8CodeUnitCount == 1 {
            append(byte: text.utf8Start.pointee)
        } else {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
    }

    mutating func append(string text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(_ text: String, times: Int) {
        for _ in 0..<max(0, times) { append(string: text) }
    }

    mutating func append(scalar: Unicode.Scalar) {
        if scalar.isASCII {
            append(byte: UInt8(scalar.value))
        } else {
            for byte in UTF8.encode(scalar)! { append(byte: byte) }
        }
    }

    private mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.moveInitialize(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = larger
    }

    /// The text written (valid UTF-8: strings are copied whole or by scalars).
    consuming func text() -> String {
        String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }
}
