public import Foundation
internal import GRDB
public import VSHCore
import VSHConfusables
import VSHSQL

extension SpatiaLiteStore {
    /// Registers a player in one transaction; names are unique by `PlayerName.key` (`name_key`),
    /// and a name may not look like another's (`PlayerName.lookalikeKey`, `name_lookalike`).
    @discardableResult
    public func addPlayer(name raw: String, email: String?, at now: Date) async throws -> PlayerRecord {
        try await insertPlayer(name: raw, email: email, passwordHash: nil, at: now)
    }

    /// Registers a player with a password hash in one transaction: the account exists whole or not at all.
    public func addPlayer(name raw: String, email: String?, passwordHash: String, at now: Date) async throws
        -> PlayerRecord
    {
        try await insertPlayer(name: raw, email: email, passwordHash: passwordHash, at: now)
    }

    private func insertPlayer(name raw: String, email: String?, passwordHash: String?, at now: Date)
        async throws
        -> PlayerRecord
    {
        let name = try PlayerName.validate(raw).get()
        if let email { try PlayerRecord.validateEmail(email) }
        let (key, lookalike) = (PlayerName.key(name), PlayerName.lookalikeKey(name))
        return try await write { db in
            try Self.requireNameFree(db, name: name, key: key, lookalike: lookalike, except: nil)
            try db.execute(
                sql:
                    "INSERT INTO players(name, name_key, name_lookalike, email, created_at, password_hash) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [name, key, lookalike, email, RFC3339.format(now), passwordHash])
            return PlayerRecord(id: PlayerID(db.lastInsertedRowID), name: name, email: email, createdAt: now)
        }
    }

    /// Throws when another player (not `except`) goes by a name with this key or one that looks like it.
    static func requireNameFree(
        _ db: Database, name: String, key: String, lookalike: String, except: PlayerID?
    ) throws {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT name, name_key FROM players WHERE (name_key = ?1 OR name_lookalike = ?2) AND id IS NOT ?3
                    ORDER BY name_key <> ?1 LIMIT 1
                    """, arguments: [key, lookalike, except?.rawValue])
        else { return }
        let (existing, existingKey): (String, String) = (row[0], row[1])
        throw existingKey == key
            ? LeagueError.nameTaken(name: name) : LeagueError.nameLooksLike(name: name, existing: existing)
    }

    /// The player going by this name, ignoring case.
    public func player(named name: String) async throws -> PlayerRecord? {
        try await read { db in
            try PlayerRow.fetchOne(
                db, sql: "SELECT id, name, email, created_at FROM players WHERE name_key = ?",
                arguments: [PlayerName.key(name)]
            )?.record
        }
    }

    /// The player with this id.
    public func player(id: PlayerID) async throws -> PlayerRecord? {
        try await read { db in
            try PlayerRow.fetchOne(
                db.cachedStatement(sql: "SELECT id, name, email, created_at FROM players WHERE id = ?"),
                arguments: [id.rawValue]
            )?.record
        }
    }

    /// Joins a player to a hunt (once).
    public func joinHunt(player: PlayerID, huntID: String, at now: Date) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO hunt_members(hunt_id, player_id, joined_at) VALUES (?, ?, ?)",
                arguments: [huntID, player.rawValue, RFC3339.format(now)])
        }
    }

    /// The hunts a player joined.
    public func joinedHunts(player: PlayerID) async throws -> Set<String> {
        // In place: a check-in by code asks it when a hunt is private.
        try database.readStatementHere { db in try Self.joinedHunts(db, player: player) }
    }

    static func joinedHunts(_ db: Database, player: PlayerID) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT hunt_id FROM hunt_members WHERE player_id = ?"),
                arguments: [player.rawValue]))
    }

    /// Every player with totals, by name key.
    public func players() async throws -> [PlayerSummary] {
        try await read { db in
            try PlayerSummaryRow.fetchAll(
                db,
                sql: """
                    SELECT p.id, p.name, p.email, p.created_at,
                        (SELECT COALESCE(SUM(e.points), 0) FROM score_events e WHERE e.player_id = p.id) AS points,
                        (SELECT COUNT(*) FROM checkins c WHERE c.player_id = p.id) AS checkins,
                        (SELECT COUNT(*) FROM checkin_state c WHERE c.player_id = p.id AND \(CheckInStateSQL.counts("c."))) AS accepted
                    FROM players p ORDER BY p.name_key
                    """
            ).map(\.summary)
        }
    }

    /// The player's display name, or `LeagueError.unknownPlayerID`.
    static func playerName(_ db: Database, _ id: PlayerID) throws -> String {
        // Read for each player of every group of check-ins: through SQLite's C API (`RawStatement`).
        guard
            let name = try RawStatement(db, "SELECT name FROM players WHERE id = ?").first(
                [.integer(id.rawValue)],
                {
                    $0.text(0)
                })
        else { throw LeagueError.unknownPlayerID(id) }
        return name
    }
}

/// A `players` row.
struct PlayerRow: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var email: String?
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, name, email
        case createdAt = "created_at"
    }

    var record: PlayerRecord {
        PlayerRecord(
            id: PlayerID(id), name: name, email: email,
            createdAt: RFC3339.parse(createdAt) ?? Date(timeIntervalSince1970: 0))
    }
}

/// A player with the totals `players()` derives.
struct PlayerSummaryRow: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var email: String?
    var createdAt: String
    var points: Int
    var checkins: Int
    var accepted: Int

    enum CodingKeys: String, CodingKey {
        case id, name, email, points, checkins, accepted
        case createdAt = "created_at"
    }

    var summary: PlayerSummary {
        PlayerSummary(
            id: PlayerID(id), name: name, email: email,
            createdAt: RFC3339.parse(createdAt) ?? Date(timeIntervalSince1970: 0), points: points,
            checkIns: checkins,
            acceptedCheckIns: accepted)
    }
}
