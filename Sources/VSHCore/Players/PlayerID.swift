/// A player's stable identity: the database row id, never reused.
///
/// Display names are for people (unique ignoring case, and they may change);
/// everything below the edge (check-ins, scores, sessions) names players by id.
public struct PlayerID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id.
    public var rawValue: Int64

    /// An id from the database row id.
    public init(rawValue: Int64) { self.rawValue = rawValue }
    /// An id from the database row id.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// The id in decimal.
    public var description: String { String(rawValue) }

    /// Ids in creation order.
    public static func < (a: PlayerID, b: PlayerID) -> Bool { a.rawValue < b.rawValue }
}
