public import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// The player's id, name, hash and role, by name key.
    public func credentials(named name: String) async throws -> Credentials? {
        try await read { db in
            try CredentialsRow.fetchOne(
                db,
                sql:
                    "SELECT id, name, email, created_at, password_hash, role FROM players WHERE name_key = ?",
                arguments: [PlayerName.key(name)]
            )?.credentials
        }
    }

    /// Replaces the hash and deletes the player's sessions, in one transaction.
    public func setPasswordHash(_ hash: String, player: PlayerID) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET password_hash = ? WHERE id = ?", arguments: [hash, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
            try db.execute(sql: "DELETE FROM sessions WHERE player_id = ?", arguments: [player.rawValue])
        }
    }

    /// Sets the `role` column.
    public func setRole(_ role: Role, player: PlayerID) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET role = ? WHERE id = ?", arguments: [role.rawValue, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
        }
    }

    /// Inserts a `sessions` row.
    public func createSession(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) async throws
    {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    tokenHash, player.rawValue, RFC3339.format(now), expiresAt.timeIntervalSince1970,
                    RFC3339.format(now),
                ])
        }
    }

    /// The unexpired session with this token hash and its player, its last use stamped.
    public func session(tokenHash: String, at now: Date) async throws -> Session? {
        try await write { db in
            guard
                let row = try SessionRow.fetchOne(
                    db,
                    sql: """
                        SELECT p.id, p.name, p.email, p.created_at, p.password_hash, p.role, s.expires_at
                        FROM sessions s JOIN players p ON p.id = s.player_id
                        WHERE s.token_hash = ? AND s.expires_at > ?
                        """,
                    arguments: [tokenHash, now.timeIntervalSince1970])
            else { return nil }
            try db.execute(
                sql: "UPDATE sessions SET last_used_at = ? WHERE token_hash = ?",
                arguments: [RFC3339.format(now), tokenHash])
            return Session(
                player: row.player.credentials.player, role: row.player.credentials.role,
                expiresAt: Date(timeIntervalSince1970: row.expiresAt))
        }
    }

    /// Deletes the `sessions` row.
    public func deleteSession(tokenHash: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }
}

/// A player with their credentials.
struct CredentialsRow: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var email: String?
    var createdAt: String
    var passwordHash: String?
    var role: String

    enum CodingKeys: String, CodingKey {
        case id, name, email, role
        case createdAt = "created_at"
        case passwordHash = "password_hash"
    }

    var credentials: Credentials {
        Credentials(
            player: PlayerRecord(
                id: PlayerID(id), name: name, email: email,
                createdAt: RFC3339.parse(createdAt) ?? Date(timeIntervalSince1970: 0)),
            passwordHash: passwordHash, role: Role(rawValue: role) ?? .player)
    }
}

/// A session with its player's credentials.
struct SessionRow: Decodable, FetchableRecord {
    var player: CredentialsRow
    var expiresAt: Double

    enum CodingKeys: String, CodingKey {
        case expiresAt = "expires_at"
    }

    init(from decoder: any Decoder) throws {
        player = try CredentialsRow(from: decoder)
        expiresAt = try decoder.container(keyedBy: CodingKeys.self).decode(Double.self, forKey: .expiresAt)
    }
}
