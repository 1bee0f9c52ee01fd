public import Foundation
internal import GRDB
public import VSHCore

/// A registered player with derived totals.
public struct PlayerSummary: Sendable {
    public var name: String
    public var email: String?
    public var createdAt: Date
    /// Points earned: first visits to stops, hunt bonuses and badges (from accepted check-ins).
    public var points: Int
    public var checkIns: Int
    public var acceptedCheckIns: Int
}

extension GeofenceStore {
    /// Registers a player. Names are validated (`PlayerName`) and unique ignoring case.
    /// - Throws: `InputError` (exit 65) for an invalid or taken name.
    @discardableResult
    public func addPlayer(name raw: String, email: String?, at now: Date) throws -> String {
        let name = try PlayerName.validate(raw).get()
        if let email {
            guard email.count <= 254, email.contains("@"), !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw InputError("\"\(email)\" is not an email address")
            }
        }
        return try run {
            try queue.inTransaction(.immediate) { db in
                if try String.fetchOne(db, sql: "SELECT name FROM players WHERE name_key = ?", arguments: [PlayerName.key(name)]) != nil {
                    throw InputError("a player called \"\(name)\" already exists")
                }
                try db.execute(
                    sql: "INSERT INTO players(name, name_key, email, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [name, PlayerName.key(name), email, RFC3339.format(now)])
                return .commit
            }
            return name
        }
    }

    /// Every player with totals, by name.
    public func players() throws -> [PlayerSummary] {
        try run {
            try queue.read { db in
                try Row.fetchAll(db, sql: Self.playerSummarySQL + " ORDER BY p.name_key").map(Self.summary)
            }
        }
    }

    /// One player with totals, or nil.
    public func player(named name: String) throws -> PlayerSummary? {
        try run {
            try queue.read { db in
                try Row.fetchOne(db, sql: Self.playerSummarySQL + " WHERE p.name_key = ?", arguments: [PlayerName.key(name)])
                    .map(Self.summary)
            }
        }
    }

    static let playerSummarySQL = """
        SELECT p.name, p.email, p.created_at,
            (SELECT COALESCE(SUM(e.points), 0) FROM score_events e WHERE e.player_id = p.id) AS points,
            (SELECT COUNT(*) FROM checkins c WHERE c.player_id = p.id) AS checkins,
            (SELECT COUNT(*) FROM checkin_state c WHERE c.player_id = p.id AND c.state = 'accepted') AS accepted
        FROM players p
        """

    static func summary(_ row: Row) -> PlayerSummary {
        PlayerSummary(
            name: row["name"], email: row["email"],
            createdAt: (row["created_at"] as String?).flatMap(RFC3339.parse) ?? Date(timeIntervalSince1970: 0),
            points: row["points"], checkIns: row["checkins"], acceptedCheckIns: row["accepted"])
    }

    /// The player's id, or an `InputError` naming the unknown player.
    static func playerID(_ db: Database, name: String) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM players WHERE name_key = ?", arguments: [PlayerName.key(name)])
        else { throw InputError("no player \"\(name)\" (add one with: vsh player add NAME)") }
        return id
    }
}
