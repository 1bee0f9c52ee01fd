/// A player's stable identity: the database row id, never reused.
///
/// Display names are for people (unique ignoring case, and they may change);
/// everything below the edge (check-ins, scores, sessions) names players by id.
public struct PlayerID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }

    public static func < (a: PlayerID, b: PlayerID) -> Bool { a.rawValue < b.rawValue }
}
