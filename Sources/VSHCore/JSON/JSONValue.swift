/// A JSON value whose objects keep their members in document order.
///
/// vsh reads hunt files with its own parser rather than `JSONSerialization` so
/// that errors carry a line and column, duplicate keys are caught, and numbers
/// keep the difference between `5` and `5.0` needed to check integer fields.
/// Writing keeps member order too, which makes output stable for scripts and
/// hunt files small to diff.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number with its source text, so `5` and `5.0` can be told apart.
    case number(Double, isInteger: Bool)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number value from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(Double(value), isInteger: true) }
    /// A number value from a double; integral values are still written with no fraction.
    public static func double(_ value: Double) -> JSONValue { .number(value, isInteger: false) }
    /// `.string` or `.null`.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The JSON type name used in error messages ("a string", "a number", ...).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object: members in document order, looked up by key.
public struct JSONObject: Equatable, Sendable {
    /// The members in document order.
    public internal(set) var members: [(key: String, value: JSONValue)]

    /// An object from its members, in order.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// Equal when the members are equal in order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// The value of a key (the first member with it), or nil.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a literal, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}
