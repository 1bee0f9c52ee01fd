/// A problem in a hunt file, naming the file, the stop when there is one, and what is wrong.
///
/// Printed as one line: `hunts/strip-classics.geojson: stop "bellagio-fountains": ring 0 is not closed`.
public struct HuntFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The hunt or badge file.
    public let file: String
    /// The stop the problem is in, if any.
    public let stop: String?
    /// The badge, for problems in `badges.json`.
    public let badge: String?
    /// What is wrong.
    public let problem: Problem

    /// A problem in a file, optionally at a stop or a badge.
    public init(file: String, stop: String? = nil, badge: String? = nil, problem: Problem) {
        self.file = file
        self.stop = stop
        self.badge = badge
        self.problem = problem
    }

    /// What can be wrong in a hunt or badge file.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case syntax(JSONSyntaxError)
        case tooLarge(bytes: Int, limit: Int)
        case notAFeatureCollection
        case missingField(String)
        case wrongType(field: String, expected: String, found: String)
        case invalidValue(field: String, reason: String)
        case unknownField(String)
        case geometry(GeometryError)
        case duplicateStop(id: String, firstFile: String)
        case huntIDMismatch(id: String, expected: String)
        case duplicateHunt(id: String)
        case tooManyPositions(count: Int, limit: Int)
        case unreadable(reason: String)

        /// The problem in words.
        public var description: String {
            switch self {
            case .syntax(let error): return "malformed JSON at \(error)"
            case .tooLarge(let bytes, let limit): return "file is \(bytes) bytes; the limit is \(limit)"
            case .notAFeatureCollection: return "not a GeoJSON FeatureCollection"
            case .missingField(let field): return "missing required field \"\(field)\""
            case .wrongType(let field, let expected, let found):
                return "\"\(field)\" must be \(expected), not \(found)"
            case .invalidValue(let field, let reason): return "\"\(field)\" \(reason)"
            case .unknownField(let field): return "unknown field \"\(field)\" (a typo?)"
            case .geometry(let error): return error.description
            case .duplicateStop(let id, let firstFile):
                return
                    "stop id \"\(id)\" is already used in \(firstFile); stop ids are unique across all hunts"
            case .huntIDMismatch(let id, let expected):
                return "hunt id \"\(id)\" does not match the file name (expected \"\(expected)\")"
            case .duplicateHunt(let id): return "hunt id \"\(id)\" is defined twice"
            case .tooManyPositions(let count, let limit):
                return "geometry has \(count) positions; the limit is \(limit) (simplify it)"
            case .unreadable(let reason): return "cannot read: \(reason)"
            }
        }
    }

    /// `file: stop "id": problem`, one line.
    public var description: String {
        if let stop { return "\(file): stop \"\(stop)\": \(problem)" }
        if let badge { return "\(file): badge \"\(badge)\": \(problem)" }
        return "\(file): \(problem)"
    }
}
