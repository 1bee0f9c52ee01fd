public import Foundation

/// Points an organiser gives or takes, with the reason: a bonus for the best photo, a penalty for a
/// rule broken. Kept apart from the events check-ins earn (a rescore derives those again and must
/// not lose these) and never changed: a mistake is undone by an adjustment the other way. The
/// boards add them to the points check-ins earned; the profile lists them.
public struct Adjustment: Sendable, Equatable {
    /// Whom it is for.
    public enum Subject: Sendable, Equatable, Hashable {
        /// A player.
        case player(PlayerID)
        /// A team.
        case team(Int64)
    }

    /// Its number, in the order they were made.
    public var id: Int64
    /// The player or team.
    public var subject: Subject
    /// The hunt it counts in (its board and results); nil: only the all-time board.
    public var huntID: String?
    /// Points given (above 0) or taken (below).
    public var points: Int
    /// Why, as the player is told.
    public var reason: String
    /// The organiser who made it.
    public var by: String
    /// When.
    public var at: Date

    /// The most points one adjustment gives or takes.
    public static let maxPoints = 100_000
    /// The longest reason, in characters.
    public static let maxReasonLength = 200

    /// An adjustment from its parts.
    public init(
        id: Int64, subject: Subject, huntID: String?, points: Int, reason: String, by: String, at: Date
    ) {
        self.id = id
        self.subject = subject
        self.huntID = huntID
        self.points = points
        self.reason = reason
        self.by = by
        self.at = at
    }

    /// The problem with points and a reason as typed (after "points" or "reason"), or nil.
    public static func problem(points: Int, reason: String) -> String? {
        if points == 0 { return "\"points\" must not be 0: give points (above 0) or take them (below 0)" }
        if abs(points) > maxPoints { return "\"points\" must be from -\(maxPoints) to \(maxPoints)" }
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "\"reason\" is empty: say why, the player is told" }
        if trimmed.count > maxReasonLength {
            return "\"reason\" is longer than \(maxReasonLength) characters"
        }
        return nil
    }
}

/// Adjustments, append-only.
public protocol AdjustmentStore: Sendable {
    /// Records an adjustment and returns it with its id.
    func adjust(
        _ subject: Adjustment.Subject, huntID: String?, points: Int, reason: String, by: String, at now: Date
    )
        async throws -> Adjustment
    /// The adjustments of a player or team, oldest first.
    func adjustments(of subject: Adjustment.Subject) async throws -> [Adjustment]
    /// The adjustments that count in a hunt, oldest first.
    func adjustments(huntID: String) async throws -> [Adjustment]
}

extension PlayerProfile {
    /// The profile with the player's adjustments: listed, and added to the points.
    public func adjusted(by adjustments: [Adjustment]) -> PlayerProfile {
        var profile = self
        profile.adjustments = adjustments
        profile.points += adjustments.reduce(0) { $0 + $1.points }
        return profile
    }
}
