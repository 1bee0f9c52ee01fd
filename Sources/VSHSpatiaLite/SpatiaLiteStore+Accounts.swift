public import Foundation
internal import GRDB
public import VSHCore
import VSHConfusables
import Synchronization
import VSHHost

extension SpatiaLiteStore {
    /// The player's id, name, hash and role, by name key.
    public func credentials(named name: String) async throws -> Credentials? {
        try await read { db in
            try CredentialsRow.fetchOne(
                db,
                sql:
                    "SELECT id, name, email, created_at, password_hash, role FROM players WHERE name_key = ? AND banned = 0",
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
            try Self.dropPendingResets(db, player: player)
        }
    }

    /// A reset link sent before a change of password or address must not outlive it.
    static func dropPendingResets(_ db: Database, player: PlayerID) throws {
        try db.execute(
            sql: "DELETE FROM password_resets WHERE player_id = ? AND used_at IS NULL",
            arguments: [player.rawValue])
    }

    /// Sets the `role` column.
    public func setRole(_ role: Role, player: PlayerID) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET role = ? WHERE id = ?", arguments: [role.rawValue, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
        }
    }

    /// Bans a player (their sessions end) or lifts the ban, in one transaction.
    public func setBanned(_ banned: Bool, player: PlayerID) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET banned = ? WHERE id = ?",
                arguments: [banned ? 1 : 0, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
            if banned {
                try db.execute(sql: "DELETE FROM sessions WHERE player_id = ?", arguments: [player.rawValue])
            }
            // A banned player's check-ins count for no team.
            try Self.rescoreTeams(
                db,
                Int64.fetchAll(
                    db,
                    sql: "SELECT DISTINCT team_id FROM checkins WHERE player_id = ? AND team_id IS NOT NULL",
                    arguments: [player.rawValue]))
        }
    }

    /// Renames a player.
    public func rename(player: PlayerID, to raw: String) async throws -> PlayerRecord {
        let name = try PlayerName.validate(raw).get()
        let (key, lookalike) = (PlayerName.key(name), PlayerName.lookalikeKey(name))
        return try await write { db in
            try Self.requireNameFree(db, name: name, key: key, lookalike: lookalike, except: player)
            try db.execute(
                sql:
                    "UPDATE players SET name = ?, name_key = ?, name_lookalike = ? WHERE id = ? AND erased = 0",
                arguments: [name, key, lookalike, player.rawValue])
            guard db.changesCount == 1,
                let record = try PlayerRow.fetchOne(
                    db, sql: "SELECT id, name, email, created_at FROM players WHERE id = ?",
                    arguments: [player.rawValue])?.record
            else { throw LeagueError.unknownPlayerID(player) }
            return record
        }
    }

    /// Erases an account; returns the photo keys only it held.
    public func erase(player: PlayerID) async throws -> [String] {
        let id = player.rawValue
        let name = ErasedAccount.name(player)
        return try await write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM players WHERE id = ? AND erased = 0", arguments: [id]) != nil
            else { throw LeagueError.unknownPlayerID(player) }
            let photos = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT photo_file FROM checkins c WHERE c.player_id = ?1 AND c.photo_file IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM checkins o WHERE o.photo_file = c.photo_file AND o.player_id <> ?1)
                    UNION
                    SELECT avatar_file FROM players p WHERE p.id = ?1 AND p.avatar_file IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM players o WHERE o.avatar_file = p.avatar_file AND o.id <> ?1)
                        AND NOT EXISTS (SELECT 1 FROM checkins o WHERE o.photo_file = p.avatar_file)
                    """, arguments: [id])
            try db.execute(
                sql: """
                    UPDATE players SET name = ?, name_key = ?, name_lookalike = NULL, email = NULL,
                        password_hash = NULL, avatar_file = NULL, erased = 1 WHERE id = ?
                    """, arguments: [name, PlayerName.key(name), id])
            for table in [
                "sessions", "password_resets", "idempotency_keys", "idempotency_slots", "team_members",
                "hunt_members", "positions",
            ] {
                try db.execute(sql: "DELETE FROM \(table) WHERE player_id = ?", arguments: [id])
            }
            try db.execute(
                sql:
                    "DELETE FROM featured_photos WHERE checkin_id IN (SELECT id FROM checkins WHERE player_id = ?)",
                arguments: [id])
            return photos
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

    /// The unexpired session with this token hash and its player. Its last use is stamped only when
    /// the stamp is older than `lastUseResolution` (a read, not a durable write, on most requests).
    public func session(tokenHash: String, at now: Date) async throws -> Session? {
        guard
            let row = try database.readStatementHere({ db in
                // A cached statement on every request (preparing one runs GRDB's authorizer for each
                // column it reads: 9 % of a server's CPU under check-ins, before), read through
                // SQLite's C API (decoding the row by column names was half of the lookup's time).
                try RawStatement(
                    db,
                    """
                    SELECT p.id, p.name, p.email, p.created_at, p.password_hash, p.role, s.expires_at,
                        s.last_used_at
                    FROM sessions s JOIN players p ON p.id = s.player_id
                    WHERE s.token_hash = ? AND s.expires_at > ? AND p.banned = 0
                    """
                ).first([.text(tokenHash), .real(now.timeIntervalSince1970)]) { SessionRow($0) }
            })
        else { return nil }
        let lastUse = RFC3339.parse(row.lastUsedAt) ?? .distantPast
        if abs(now.timeIntervalSince(lastUse)) > Self.lastUseResolution {
            // The request does not wait for its stamp: at an event's start every player's first
            // request stamps, and the stamps' own durable writes took a fifth of the writer's
            // time from first visits. The next check-in group writes them in its transaction;
            // without one, they are written together after `lastUseStampDelay`.
            stampLastUse(tokenHash: tokenHash, time: RFC3339.format(now))
        }
        return Session(
            player: row.player.credentials.player, role: row.player.credentials.role,
            expiresAt: Date(timeIntervalSince1970: row.expiresAt))
    }

    /// How stale a session's `last_used_at` may be before a request stamps it anew, in seconds.
    static let lastUseResolution: TimeInterval = 600

    /// Keeps a stamp for the next write, and makes sure one comes within `lastUseStampDelay`.
    func stampLastUse(tokenHash: String, time: String) {
        let start = pendingStamps.withLock { pending in
            pending.stamps[tokenHash] = time
            guard !pending.flushing else { return false }
            pending.flushing = true
            return true
        }
        guard start else { return }
        let delay = lastUseStampDelay.withLock { $0 }
        Task {
            try? await Task.sleep(for: delay)
            try? await self.flushLastUseStamps()
        }
    }

    /// The stamps waiting (their writer must write them, or put them back).
    func takeLastUseStamps(endingFlush: Bool = false) -> [String: String] {
        pendingStamps.withLock { pending in
            defer { pending.stamps = [:] }
            if endingFlush { pending.flushing = false }
            return pending.stamps
        }
    }

    /// Puts back stamps whose write failed (a newer stamp of the same session wins).
    func restoreLastUseStamps(_ stamps: [String: String]) {
        pendingStamps.withLock { pending in pending.stamps.merge(stamps) { newer, _ in newer } }
    }

    /// Writes `stamps` in the transaction of `db`.
    static func writeLastUseStamps(_ db: Database, _ stamps: [String: String]) throws {
        guard !stamps.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE sessions SET last_used_at = ? WHERE token_hash = ?")
        for (tokenHash, time) in stamps { try update.execute(arguments: [time, tokenHash]) }
    }

    /// Writes the sessions' last-use stamps that wait, in one transaction (also done by itself
    /// `lastUseStampDelay` after a stamp that no check-in group wrote).
    public func flushLastUseStamps() async throws {
        let stamps = takeLastUseStamps(endingFlush: true)
        guard !stamps.isEmpty else { return }
        do {
            try await write { db in try Self.writeLastUseStamps(db, stamps) }
        } catch {
            restoreLastUseStamps(stamps)
            throw error
        }
    }

    /// Deletes the `sessions` row.
    public func deleteSession(tokenHash: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }
}

extension SpatiaLiteStore {
    /// Updates `players.email`.
    public func setEmail(_ email: String, player: PlayerID) async throws {
        try PlayerRecord.validateEmail(email)
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET email = ? WHERE id = ?", arguments: [email, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
            try Self.dropPendingResets(db, player: player)
        }
    }

    /// Updates `players.avatar_file`.
    public func setAvatar(_ key: String, player: PlayerID) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE players SET avatar_file = ? WHERE id = ?", arguments: [key, player.rawValue])
            guard db.changesCount == 1 else { throw LeagueError.unknownPlayerID(player) }
        }
    }

    /// `players.avatar_file`.
    public func avatar(player: PlayerID) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                db, sql: "SELECT avatar_file FROM players WHERE id = ?", arguments: [player.rawValue])
        }
    }

    /// `players.avatar_file` of these players, in one statement a 500 ids.
    public func avatars(players: [PlayerID]) async throws -> [PlayerID: String] {
        guard !players.isEmpty else { return [:] }
        return try await read { db in
            var keys: [PlayerID: String] = [:]
            for start in stride(from: 0, to: players.count, by: 500) {
                let chunk = players[start..<min(start + 500, players.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                for row in try Row.fetchAll(
                    db,
                    sql:
                        "SELECT id, avatar_file FROM players WHERE avatar_file IS NOT NULL AND id IN (\(marks))",
                    arguments: StatementArguments(chunk.map(\.rawValue)))
                {
                    keys[PlayerID(row[0] as Int64)] = row[1] as String
                }
            }
            return keys
        }
    }

    /// Players by e-mail address, ignoring case.
    public func players(withEmail email: String) async throws -> [PlayerRecord] {
        try await read { db in
            try CredentialsRow.fetchAll(
                db,
                sql: """
                    SELECT id, name, email, created_at, password_hash, role FROM players
                    WHERE email = ? COLLATE NOCASE ORDER BY id
                    """,
                arguments: [email]
            ).map(\.credentials.player)
        }
    }

    /// Inserts a `password_resets` row.
    public func createPasswordReset(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date)
        async throws
    {
        try await write { db in
            try db.execute(
                sql:
                    "INSERT INTO password_resets(token_hash, player_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [tokenHash, player.rawValue, RFC3339.format(now), expiresAt.timeIntervalSince1970])
        }
    }

    /// Uses the token, sets the hash and ends the sessions, in one transaction.
    public func resetPassword(tokenHash: String, passwordHash: String, at now: Date) async throws -> PlayerID?
    {
        try await write { db in
            guard
                let id = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT player_id FROM password_resets
                        WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                        """,
                    arguments: [tokenHash, now.timeIntervalSince1970])
            else { return nil }
            try db.execute(
                sql: "UPDATE password_resets SET used_at = ? WHERE player_id = ? AND used_at IS NULL",
                arguments: [RFC3339.format(now), id])
            try db.execute(
                sql: "UPDATE players SET password_hash = ? WHERE id = ?", arguments: [passwordHash, id])
            try db.execute(sql: "DELETE FROM sessions WHERE player_id = ?", arguments: [id])
            return PlayerID(id)
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
struct SessionRow {
    var player: CredentialsRow
    var expiresAt: Double
    var lastUsedAt: String

    /// The row as `session(tokenHash:at:)` selects it, by position; nil when a column that is NOT
    /// NULL in its table is NULL.
    init?(_ row: borrowing RawStatement.Columns) {
        guard let id = row.int64(0), let name = row.text(1), let createdAt = row.text(3),
            let role = row.text(5), let expiresAt = row.double(6), let lastUsedAt = row.text(7)
        else { return nil }
        player = CredentialsRow(
            id: id, name: name, email: row.text(2), createdAt: createdAt, passwordHash: row.text(4),
            role: role)
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}
