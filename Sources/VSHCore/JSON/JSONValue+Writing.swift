extension JSONValue {
    /// The value as compact JSON on one line (for `--json` output, one object a line).
    public var compactText: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// The value pretty-printed with two-space indentation. Arrays of numbers
    /// (positions) stay on one line so that a hunt file reads like a map.
    public var prettyText: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        out.append("\n")
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .number(let value, _): out.append(Self.format(value))
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
                    out.append(String(repeating: indent, count: level + 1))
                    element.write(to: &out, indent: indent, level: level + 1)
                    out.append(i + 1 < elements.count ? ",\n" : "\n")
                }
                out.append(String(repeating: indent, count: level) + "]")
            }
        case .object(let object):
            if object.members.isEmpty {
                out.append("{}")
            } else if let indent {
                out.append("{\n")
                for (i, member) in object.members.enumerated() {
                    out.append(String(repeating: indent, count: level + 1))
                    Self.writeString(member.key, to: &out)
                    out.append(": ")
                    member.value.write(to: &out, indent: indent, level: level + 1)
                    out.append(i + 1 < object.members.count ? ",\n" : "\n")
                }
                out.append(String(repeating: indent, count: level) + "}")
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

    static func writeString(_ value: String, to out: inout String) {
        out.append("\"")
        // Most strings need no escape: append them whole (a batch of check-ins spent 5% of its
        // time appending rule details a scalar at a time). 0xE2 starts U+2028, U+2029 and the
        // text-direction controls U+200E-200F, U+202A-202E, U+2066-2069; 0xC2 the C1 controls;
        // 0xD8 the Arabic letter mark U+061C. Those are escaped too: JSON lines shown on a
        // terminal cannot carry a control that rewrites or reorders what it shows.
        if !value.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 || $0 == 0xC2 || $0 == 0xD8
        }) {
            out.append(value)
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
                    out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }
}
