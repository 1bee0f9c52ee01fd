/// Why SpatiaLite (GEOS) could not make a stop's geometry from what it was given.
public enum SpatialOperationError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// The operation returned no geometry.
    case emptyResult
    /// The operation returned something that is not a stop's geometry.
    case unexpectedResult(String)
    /// A perimeter of fewer than 3 positions.
    case tooFewPositions
    /// A walk that encloses no area.
    case noArea
    /// A hull of no positions.
    case noPositions
    /// Well-known text over 4,000,000 characters.
    case wktTooLong
    /// Text SpatiaLite cannot read as a polygon.
    case unreadableWKT

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .emptyResult: return "the geometry came out empty"
        case .unexpectedResult(let what): return "the geometry came out as \(what)"
        case .tooFewPositions: return "a perimeter needs at least 3 positions"
        case .noArea: return "the walk encloses no area"
        case .noPositions: return "no positions"
        case .wktTooLong: return "the WKT text is too long"
        case .unreadableWKT:
            return "not well-known text vsh can read (expected POLYGON or MULTIPOLYGON)"
        }
    }

    /// Invalid data: the input was the problem.
    public var errorKind: ErrorKind { .invalidData }
}
