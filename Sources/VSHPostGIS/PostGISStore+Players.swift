public import Foundation
internal import Logging
internal import PostgresNIO
import VSHConfusables
public import VSHCore
import VSHHost
import VSHSQL

extension PostGISStore {
    // MARK: players

    /// Registers a player; names are unique by `PlayerName.key` (`name_key`, a unique index).
    @discardableResult
    public func addPlayer(name raw: String, email: String?, at now: Date) async throws -> PlayerRecord {
        try await insertPlayer(name: raw, email: email, passwordHash: nil, at: now)
    }

    /// Registers a player with a password hash: the account exists whole or not at all.
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
        let logger = self.logger
        let id = try await transaction { db -> Int64? in
            try await self.requireNameFree(db, name: name, key: key, lookalike: lookalike, except: nil)
            return try await db.query(
                """
                INSERT INTO players(name, name_key, name_lookalike, email, created_at, password_hash)
                VALUES (\(name), \(key), \(lookalike), \(email), \(RFC3339.format(now)), \(passwordHash))
                ON CONFLICT (name_key) DO NOTHING RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self)
        }
        guard let id else { throw LeagueError.nameTaken(name: name) }
        return PlayerRecord(id: PlayerID(id), name: name, email: email, createdAt: now)
    }

    /// Throws when another player (not `except`) goes by a name with this key or one that looks like
    /// it. Names that look alike wait for each other, so that two instances cannot both let "Alice"
    /// and "AIice" in at once.
    private func requireNameFree(
        _ db: PostgresConnection, name: String, key: String, lookalike: String, except: PlayerID?
    ) async throws {
        try await db.query("SELECT pg_advisory_xact_lock(\(Lock.lookalike(lookalike)))", logger: logger)
        if let (existing, existingKey) = try await db.query(
            """
            SELECT name, name_key FROM players
            WHERE (name_key = \(key) OR name_lookalike = \(lookalike)) AND id IS DISTINCT FROM \(except?.rawValue)::int8
            ORDER BY name_key <> \(key) LIMIT 1
            """, logger: logger
        ).collect().first?.decode((String, String).self) {
            throw existingKey == key
                ? LeagueError.nameTaken(name: name)
                : LeagueError.nameLooksLike(name: name, existing: existing)
        }
    }

    /// The player going by this name, ignoring case.
    public func player(named name: String) async throws -> PlayerRecord? {
        try await credentials(named: name, bannedToo: true)?.player
    }

    /// The player with this id.
    public func player(id: PlayerID) async throws -> PlayerRecord? {
        try await read { db in try await self.playerRecord(db, id: id) }
    }

    func playerRecord(_ db: PostgresConnection, id: PlayerID) async throws -> PlayerRecord? {
        try await db.rows(Prepared<PlayerSQL>(id.rawValue), logger: logger).first.map {
            try Self.credentials($0).player
        }
    }

    public func joinHunt(player: PlayerID, huntID: String, at now: Date) async throws {
        try await transaction { db in
            try await db.query(
                """
                INSERT INTO hunt_members(hunt_id, player_id, joined_at)
                VALUES (\(huntID), \(player.rawValue), \(RFC3339.format(now))) ON CONFLICT DO NOTHING
                """, logger: self.logger)
        }
    }

    public func joinedHunts(player: PlayerID) async throws -> Set<String> {
        try await read { db in try await self.joinedHunts(db, player: player) }
    }

    func joinedHunts(_ db: PostgresConnection, player: PlayerID) async throws -> Set<String> {
        var found: Set<String> = []
        for row in try await db.query(
            "SELECT hunt_id FROM hunt_members WHERE player_id = \(player.rawValue)", logger: logger
        ).collect() {
            found.insert(try row.decode(String.self))
        }
        return found
    }

    /// Every player with totals, by name key.
    public func players() async throws -> [PlayerSummary] {
        try await read { db in
            try await db.query(
                """
                SELECT p.id, p.name, p.email, p.created_at,
                    (SELECT COALESCE(SUM(e.points), 0)::int8 FROM score_events e WHERE e.player_id = p.id),
                    (SELECT COUNT(*) FROM checkins c WHERE c.player_id = p.id),
                    (SELECT COUNT(*) FROM checkin_state c WHERE c.player_id = p.id AND \(unescaped: CheckInStateSQL.counts("c.")))
                FROM players p ORDER BY p.name_key
                """, logger: self.logger
            ).collect().map { row in
                let (id, name, email, created, points, checkIns, accepted) = try row.decode(
                    (Int64, String, String?, String, Int, Int, Int).self)
                return PlayerSummary(
                    id: PlayerID(id), name: name, email: email,
                    createdAt: RFC3339.parse(created) ?? Date(timeIntervalSince1970: 0), points: points,
                    checkIns: checkIns, acceptedCheckIns: accepted)
            }
        }
    }

    // MARK: accounts

    static func credentials(_ row: PostgresRow) throws -> Credentials {
        let (id, name, email, created, hash, role) = try row.decode(
            (Int64, String, String?, String, String?, String).self)
        return credentials(id, name, email, created, hash, role)
    }

    /// Credentials from the columns of a player's row.
    static func credentials(
        _ id: Int64, _ name: String, _ email: String?, _ created: String, _ hash: String?, _ role: String
    ) -> Credentials {
        Credentials(
            player: PlayerRecord(
                id: PlayerID(id), name: name, email: email,
                createdAt: RFC3339.parse(created) ?? Date(timeIntervalSince1970: 0)),
            passwordHash: hash, role: Role(rawValue: role) ?? .player)
    }

    /// The player's id, name, hash and role, by name key.
    public func credentials(named name: String) async throws -> Credentials? {
        try await credentials(named: name, bannedToo: false)
    }

    /// A player's row by name key; a banned player's only when `bannedToo` (a ban keeps them from
    /// signing in, not from being found).
    func credentials(named name: String, bannedToo: Bool) async throws -> Credentials? {
        let key = PlayerName.key(name)
        let most: Int64 = bannedToo ? 1 : 0
        return try await read { db in
            try await db.query(
                "SELECT id, name, email, created_at, password_hash, role FROM players WHERE name_key = \(key) AND banned <= \(most)",
                logger: self.logger
            ).collect().first.map(Self.credentials)
        }
    }

    /// Runs an UPDATE that must change exactly one player's row.
    private func updatePlayer(_ player: PlayerID, _ query: PostgresQuery, _ db: PostgresConnection)
        async throws
    {
        let rows = try await db.query(query, logger: logger).collect()
        guard rows.count == 1 else { throw LeagueError.unknownPlayerID(player) }
    }

    /// Replaces the hash and deletes the player's sessions, in one transaction.
    public func setPasswordHash(_ hash: String, player: PlayerID) async throws {
        try await transaction { db in
            try await self.updatePlayer(
                player,
                "UPDATE players SET password_hash = \(hash) WHERE id = \(player.rawValue) RETURNING id", db)
            try await db.query(
                "DELETE FROM sessions WHERE player_id = \(player.rawValue)", logger: self.logger)
            try await db.query(
                "DELETE FROM password_resets WHERE player_id = \(player.rawValue) AND used_at IS NULL",
                logger: self.logger)
        }
    }

    /// Sets the `role` column.
    public func setRole(_ role: Role, player: PlayerID) async throws {
        try await read { db in
            try await self.updatePlayer(
                player,
                "UPDATE players SET role = \(role.rawValue) WHERE id = \(player.rawValue) RETURNING id", db)
        }
    }

    /// Bans a player (their sessions end) or lifts the ban, in one transaction.
    public func setBanned(_ banned: Bool, player: PlayerID) async throws {
        let flag: Int64 = banned ? 1 : 0
        try await transaction { db in
            try await self.updatePlayer(
                player, "UPDATE players SET banned = \(flag) WHERE id = \(player.rawValue) RETURNING id", db)
            if banned {
                try await db.query(
                    "DELETE FROM sessions WHERE player_id = \(player.rawValue)", logger: self.logger)
            }
            // A banned player's check-ins count for no team.
            try await self.rescoreTeams(
                db,
                db.query(
                    "SELECT DISTINCT team_id FROM checkins WHERE player_id = \(player.rawValue) AND team_id IS NOT NULL",
                    logger: self.logger
                ).collect().map { try $0.decode(Int64.self) })
        }
    }

    /// Renames a player, checked as at registration.
    public func rename(player: PlayerID, to raw: String) async throws -> PlayerRecord {
        let name = try PlayerName.validate(raw).get()
        let (key, lookalike) = (PlayerName.key(name), PlayerName.lookalikeKey(name))
        try await transaction { db in
            try await self.requireNameFree(db, name: name, key: key, lookalike: lookalike, except: player)
            try await self.updatePlayer(
                player,
                """
                UPDATE players SET name = \(name), name_key = \(key), name_lookalike = \(lookalike)
                WHERE id = \(player.rawValue) AND erased = 0 RETURNING id
                """, db)
        }
        guard let record = try await self.player(id: player) else {
            throw LeagueError.unknownPlayerID(player)
        }
        return record
    }

    /// Erases an account; returns the photo keys only it held.
    public func erase(player: PlayerID) async throws -> [String] {
        let id = player.rawValue
        let name = ErasedAccount.name(player)
        let logger = self.logger
        return try await transaction { db in
            let photos = try await db.query(
                """
                SELECT DISTINCT photo_file FROM checkins c WHERE c.player_id = \(id) AND c.photo_file IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM checkins o WHERE o.photo_file = c.photo_file AND o.player_id <> \(id))
                UNION
                SELECT avatar_file FROM players p WHERE p.id = \(id) AND p.avatar_file IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM players o WHERE o.avatar_file = p.avatar_file AND o.id <> \(id))
                    AND NOT EXISTS (SELECT 1 FROM checkins o WHERE o.photo_file = p.avatar_file)
                """, logger: logger
            ).collect().map { try $0.decode(String.self) }
            try await self.updatePlayer(
                player,
                """
                UPDATE players SET name = \(name), name_key = \(PlayerName.key(name)), name_lookalike = NULL,
                    email = NULL, password_hash = NULL, avatar_file = NULL, erased = 1
                WHERE id = \(id) AND erased = 0 RETURNING id
                """, db)
            for table in [
                "sessions", "password_resets", "idempotency_keys", "team_members", "hunt_members",
                "positions",
            ] {
                try await db.query("DELETE FROM \(unescaped: table) WHERE player_id = \(id)", logger: logger)
            }
            try await db.query(
                "DELETE FROM featured_photos WHERE checkin_id IN (SELECT id FROM checkins WHERE player_id = \(id))",
                logger: logger)
            return photos
        }
    }

    /// Inserts a `sessions` row.
    public func createSession(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) async throws
    {
        try await read { db in
            try await db.query(
                """
                INSERT INTO sessions(token_hash, player_id, created_at, expires_at, last_used_at)
                VALUES (\(tokenHash), \(player.rawValue), \(RFC3339.format(now)), \(expiresAt.timeIntervalSince1970),
                    \(RFC3339.format(now)))
                """, logger: self.logger)
        }
    }

    /// The unexpired session with this token hash; its last use is stamped when older than ten
    /// minutes. Lookups that arrive together share one statement (`BatchedLookups`).
    public func session(tokenHash: String, at now: Date) async throws -> Session? {
        let found: FoundSession?
        if pinned == nil {
            found = try await sessionLookups.find(tokenHash) { hashes in
                try await self.read { db in
                    var found: [String: FoundSession] = [:]
                    for row in try await db.rows(Prepared<SessionsSQL>(hashes), logger: self.logger) {
                        let (hash, session) = try FoundSession.decode(row)
                        found[hash] = session
                    }
                    return found
                }
            }
        } else {
            found = try await read { db in
                try await db.rows(Prepared<SessionsSQL>([tokenHash]), logger: self.logger).first.map {
                    try FoundSession.decode($0).1
                }
            }
        }
        guard let found, found.expiresAt > now.timeIntervalSince1970 else { return nil }
        let lastUse = RFC3339.parse(found.lastUsed) ?? .distantPast
        if abs(now.timeIntervalSince(lastUse)) > 600 {
            // The stamps that come together share one statement, and so one commit to flush: at an
            // event's start every player's first request stamps. The request still waits for it.
            let stamp = LastUseStamp(tokenHash: tokenHash, time: RFC3339.format(now))
            if pinned == nil {
                _ = try await lastUseStamps.find(stamp.key) { keys in
                    try await self.stampLastUse(keys.compactMap(LastUseStamp.init))
                    return [:]
                }
            } else {
                try await stampLastUse([stamp])
            }
        }
        return Session(
            player: found.credentials.player, role: found.credentials.role,
            expiresAt: Date(timeIntervalSince1970: found.expiresAt))
    }

    /// Writes sessions' last-use stamps in one statement.
    func stampLastUse(_ stamps: [LastUseStamp]) async throws {
        let (hashes, times) = (stamps.map(\.tokenHash), stamps.map(\.time))
        try await read { db in
            try await db.query(
                """
                UPDATE sessions SET last_used_at = u.stamp
                FROM unnest(\(hashes)::text[], \(times)::text[]) AS u(hash, stamp)
                WHERE token_hash = u.hash
                """, logger: self.logger)
        }
    }

    /// Deletes the `sessions` row.
    public func deleteSession(tokenHash: String) async throws {
        try await read { db in
            try await db.query("DELETE FROM sessions WHERE token_hash = \(tokenHash)", logger: self.logger)
        }
    }

    /// Updates `players.email`.
    public func setEmail(_ email: String, player: PlayerID) async throws {
        try PlayerRecord.validateEmail(email)
        try await transaction { db in
            try await self.updatePlayer(
                player, "UPDATE players SET email = \(email) WHERE id = \(player.rawValue) RETURNING id", db)
            try await db.query(
                "DELETE FROM password_resets WHERE player_id = \(player.rawValue) AND used_at IS NULL",
                logger: self.logger)
        }
    }

    /// Updates `players.avatar_file`.
    public func setAvatar(_ key: String, player: PlayerID) async throws {
        try await read { db in
            try await self.updatePlayer(
                player, "UPDATE players SET avatar_file = \(key) WHERE id = \(player.rawValue) RETURNING id",
                db)
        }
    }

    /// `players.avatar_file`.
    public func avatar(player: PlayerID) async throws -> String? {
        try await read { db in
            try await db.query(
                "SELECT avatar_file FROM players WHERE id = \(player.rawValue)", logger: self.logger
            )
            .collect().first?.decode(String?.self)
        }
    }

    /// `players.avatar_file` of these players, in one statement.
    public func avatars(players: [PlayerID]) async throws -> [PlayerID: String] {
        guard !players.isEmpty else { return [:] }
        return try await read { db in
            var keys: [PlayerID: String] = [:]
            for row in try await db.query(
                """
                SELECT id, avatar_file FROM players
                WHERE avatar_file IS NOT NULL AND id = ANY(\(players.map(\.rawValue))::int8[])
                """, logger: self.logger
            ).collect() {
                let (id, key) = try row.decode((Int64, String).self)
                keys[PlayerID(id)] = key
            }
            return keys
        }
    }

    /// Players by e-mail address, ignoring case.
    public func players(withEmail email: String) async throws -> [PlayerRecord] {
        try await read { db in
            try await db.query(
                """
                SELECT id, name, email, created_at, password_hash, role FROM players
                WHERE lower(email) = lower(\(email)) ORDER BY id
                """, logger: self.logger
            ).collect().map { try Self.credentials($0).player }
        }
    }

    /// Inserts a `password_resets` row.
    public func createPasswordReset(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date)
        async throws
    {
        try await read { db in
            try await db.query(
                """
                INSERT INTO password_resets(token_hash, player_id, created_at, expires_at)
                VALUES (\(tokenHash), \(player.rawValue), \(RFC3339.format(now)), \(expiresAt.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    /// Uses the token, sets the hash and ends the sessions, in one transaction.
    public func resetPassword(tokenHash: String, passwordHash: String, at now: Date) async throws -> PlayerID?
    {
        try await transaction { db in
            guard
                let id = try await db.query(
                    """
                    SELECT player_id FROM password_resets
                    WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now.timeIntervalSince1970)
                    FOR UPDATE
                    """, logger: self.logger
                ).collect().first?.decode(Int64.self)
            else { return nil }
            try await db.query(
                "UPDATE password_resets SET used_at = \(RFC3339.format(now)) WHERE player_id = \(id) AND used_at IS NULL",
                logger: self.logger)
            try await db.query(
                "UPDATE players SET password_hash = \(passwordHash) WHERE id = \(id)", logger: self.logger)
            try await db.query("DELETE FROM sessions WHERE player_id = \(id)", logger: self.logger)
            return PlayerID(id)
        }
    }

    // MARK: reviews

    /// Check-ins whose state is pending, oldest first.
    public func pendingCheckIns() async throws -> [PendingCheckIn] {
        try await read { db in
            try await db.query(
                """
                SELECT c.id, c.player_id, p.name, c.received_at, c.hunt_id, c.stop_id, s.name, c.rules, c.photo_file,
                    c.lat, c.lon, c.accuracy_m, c.fix_time
                FROM checkin_state c JOIN players p ON p.id = c.player_id LEFT JOIN stops s ON s.id = c.stop_id
                WHERE \(unescaped: CheckInStateSQL.isIn(.pending, "c.")) ORDER BY c.id
                """, logger: self.logger
            ).collect().map { row in
                let (
                    id, player, name, received, hunt, stop, stopName, rules, photo, lat, lon, accuracy,
                    fixTime
                ) =
                    try row.decode(
                        (
                            Int64, Int64, String, String, String?, String?, String?, String, String?, Double?,
                            Double?, Double?, String?
                        ).self)
                return PendingCheckIn(
                    id: id, playerID: PlayerID(player), player: name,
                    receivedAt: RFC3339.parse(received) ?? Date(timeIntervalSince1970: 0), huntID: hunt,
                    stopID: stop,
                    stopName: stopName, reasons: PendingCheckIn.reviewReasons(rulesJSON: rules),
                    photoFile: photo,
                    position: lat.flatMap { lat in
                        lon.flatMap { try? Coordinate(latitude: lat, longitude: $0) }
                    },
                    accuracyMeters: accuracy, fixTime: fixTime.flatMap(RFC3339.parse))
            }
        }
    }

    /// The player and photo of check-in `id`.
    public func photo(ofCheckIn id: Int64) async throws -> CheckInPhoto? {
        try await read { db in
            try await db.query(
                "SELECT player_id, photo_file FROM checkins WHERE id = \(id)", logger: self.logger
            )
            .collect().first.map { row in
                let (player, photo) = try row.decode((Int64, String?).self)
                return CheckInPhoto(playerID: PlayerID(player), photoFile: photo)
            }
        }
    }

    /// Check-in `id` as it was submitted.
    public func reviewSubject(_ id: Int64) async throws -> ReviewSubject? {
        try await read { db in
            try await db.query(
                """
                SELECT s.player_id, s.received_at, s.source, s.hunt_id, s.lat, s.lon, s.accuracy_m, s.fix_epoch,
                    s.photo_file, s.state, s.rules, c.answer_right
                FROM checkin_state s JOIN checkins c ON c.id = s.id WHERE s.id = \(id)
                """, logger: self.logger
            ).collect().first.map { row in
                let (player, received, source, hunt, lat, lon, accuracy, epoch, photo, state, rules, answer) =
                    try row.decode(
                        (
                            Int64, String, String, String?, Double?, Double?, Double?, Double?, String?,
                            String,
                            String, Int64?
                        ).self)
                var subject = ReviewSubject(
                    id: id, playerID: PlayerID(player),
                    receivedAt: RFC3339.parse(received) ?? Date(timeIntervalSince1970: 0),
                    source: FixSource(rawValue: source) ?? .photo, huntID: hunt,
                    position: lat.flatMap { lat in
                        lon.flatMap { try? Coordinate(latitude: lat, longitude: $0) }
                    },
                    accuracyMeters: accuracy, fixTime: epoch.map(Date.init(timeIntervalSince1970:)),
                    photoFile: photo, state: try CheckInStateSQL.state(state),
                    failedRules: ReviewSubject.failedRules(rulesJSON: rules))
                subject.codeChecked = ReviewSubject.passed(.code, rulesJSON: rules)
                subject.answerChecked = answer.map { $0 == 1 }
                return subject
            }
        }
    }

    /// Records a moderator's decision (append-only `reviews`) and rescores the player, under
    /// the player's lock.
    public func review(
        _ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date
    )
        async throws -> ReviewOutcome
    {
        let reason = try ReviewDecision.validReason(reason)
        let logger = self.logger
        return try await transaction { db in
            let select: PostgresQuery = """
                SELECT c.state, c.player_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id
                WHERE c.id = \(id)
                """
            guard let first = try await db.query(select, logger: logger).collect().first else {
                throw LeagueError.unknownCheckIn(id: id)
            }
            let player = PlayerID(try first.decode((String, Int64, String).self).1)
            try await Lock.take([Lock.player(player)], on: db, logger: logger)
            // Read again under the lock: another moderator may have decided meanwhile.
            let before = try await db.query(select, logger: logger).collect().first!.decode(
                (String, Int64, String).self)
            guard before.0 == decision.requiredState.rawValue else {
                throw LeagueError.checkInState(
                    id: id, state: try CheckInStateSQL.state(before.0), required: decision.requiredState)
            }
            let total: PostgresQuery =
                "SELECT COALESCE(SUM(points), 0)::int8 FROM score_events WHERE player_id = \(player.rawValue)"
            let pointsBefore =
                try await db.query(total, logger: logger).collect().first?.decode(Int.self) ?? 0
            try await db.query(
                """
                INSERT INTO reviews(checkin_id, decision, reason, moderator, decided_at)
                VALUES (\(id), \(decision.rawValue), \(reason), \(moderator), \(RFC3339.format(now)))
                """, logger: logger)
            try await self.rescore(db, player: player)
            let after = try await db.query(select, logger: logger).collect().first!.decode(
                (String, Int64, String).self)
            let pointsAfter = try await db.query(total, logger: logger).collect().first?.decode(Int.self) ?? 0
            return ReviewOutcome(
                checkInID: id, playerID: player, player: after.2, state: try CheckInStateSQL.state(after.0),
                pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter)
        }
    }

    /// Overturns rejected check-in `id`: its evidence recorded again as a check-in that names it
    /// in `overturns`, decided now and approved, in one transaction under the player's and the
    /// photo's locks (as a check-in takes them); the unique index on `overturns` keeps it to once.
    public func overturn(
        _ id: Int64, as submission: Submission, photoFile: String?, decide: @escaping CheckInDecider,
        reason: String, moderator: String, at now: Date
    ) async throws -> ReviewOutcome {
        let reason = try ReviewDecision.validReason(reason)
        let logger = self.logger
        var keys: Set<Int64> = [Lock.player(submission.player)]
        if let photo = submission.photo {
            keys.insert(Lock.image(photo.imageSHA256))
            if let pixels = photo.pixelSHA256 { keys.insert(Lock.image(pixels)) }
        }
        return try await transaction { [keys] db in
            try await Lock.take(keys, on: db, logger: logger)
            let select: PostgresQuery = """
                SELECT c.state, c.player_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id
                WHERE c.id = \(id)
                """
            guard let row = try await db.query(select, logger: logger).collect().first else {
                throw LeagueError.unknownCheckIn(id: id)
            }
            let (state, playerID, _) = try row.decode((String, Int64, String).self)
            guard playerID == submission.player.rawValue else { throw LeagueError.unknownCheckIn(id: id) }
            guard state == CheckInState.rejected.rawValue else {
                throw LeagueError.checkInState(
                    id: id, state: try CheckInStateSQL.state(state), required: .rejected)
            }
            if let by = try await db.query("SELECT id FROM checkins WHERE overturns = \(id)", logger: logger)
                .collect().first?.decode(Int64.self)
            {
                throw LeagueError.overturned(id: id, by: by)
            }
            let total: PostgresQuery =
                "SELECT COALESCE(SUM(points), 0)::int8 FROM score_events WHERE player_id = \(playerID)"
            let pointsBefore =
                try await db.query(total, logger: logger).collect().first?.decode(Int.self) ?? 0
            let catalogue = try await self.catalogue(db)
            let facts = try await CheckInFacts.gather(for: submission) { question in
                try await self.answer(question, db, catalogue: catalogue)
            }
            let copy = try await self.insert(
                db, submission, decision: decide(submission, facts), photoFile: photoFile, overturns: id
            ).id
            try await db.query(
                """
                INSERT INTO reviews(checkin_id, decision, reason, moderator, decided_at)
                VALUES (\(copy), \(ReviewDecision.approved.rawValue), \(reason), \(moderator), \(RFC3339.format(now)))
                """, logger: logger)
            try await self.rescore(db, player: submission.player)
            let selectCopy: PostgresQuery = """
                SELECT c.state, c.player_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id
                WHERE c.id = \(copy)
                """
            let after = try await db.query(selectCopy, logger: logger).collect().first!.decode(
                (String, Int64, String).self)
            let pointsAfter = try await db.query(total, logger: logger).collect().first?.decode(Int.self) ?? 0
            return ReviewOutcome(
                checkInID: id, playerID: submission.player, player: after.2,
                state: try CheckInStateSQL.state(after.0),
                pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter, recordedAs: copy)
        }
    }

    // MARK: doctor

    /// Checks the score totals against a rescore (rolled back), the running totals against the
    /// events, foreign keys the schema cannot hold, and that every recorded photo is stored.
    public func health(photos: any PhotoStore) async throws -> StoreHealth {
        var health = try await rolledBack { db in
            let logger = self.logger
            func count(_ query: PostgresQuery) async throws -> Int {
                try await db.query(query, logger: logger).collect().first?.decode(Int.self) ?? 0
            }
            let players = try await count("SELECT count(*) FROM players")
            let checkIns = try await count("SELECT count(*) FROM checkins")
            let stops = try await count("SELECT count(*) FROM stops")
            // Rows that name a stop or hunt no longer defined are fine (history); invalid geometry is not.
            let invalid = try await count("SELECT count(*) FROM stops WHERE NOT ST_IsValid(geom)")
            let totals: PostgresQuery =
                "SELECT p.id, coalesce((SELECT sum(points) FROM score_events e WHERE e.player_id = p.id), 0)::int8 FROM players p"
            var stored: [Int64: Int] = [:]
            for row in try await db.query(totals, logger: logger).collect() {
                let (id, points) = try row.decode((Int64, Int).self)
                stored[id] = points
            }
            let runningTotalsWrong = try await count(
                """
                SELECT count(*) FROM players p
                LEFT JOIN player_scores s ON s.player_id = p.id
                LEFT JOIN (SELECT player_id, SUM(points)::int8 AS points, COUNT(*) FILTER (WHERE kind = 'bonus') AS hunts,
                               COUNT(*) FILTER (WHERE kind = 'stop') AS stops, COUNT(*) FILTER (WHERE kind = 'badge') AS badges,
                               MAX(at_epoch) AS reached
                           FROM score_events GROUP BY player_id) e ON e.player_id = p.id
                WHERE s.points IS DISTINCT FROM e.points OR s.hunts IS DISTINCT FROM e.hunts
                    OR s.stops IS DISTINCT FROM e.stops OR s.badges IS DISTINCT FROM e.badges
                    OR s.reached IS DISTINCT FROM e.reached
                """)
            // And each hunt's, both ways (a row for every player and hunt with events, none without).
            let huntTotalsWrong = try await count(
                """
                SELECT count(DISTINCT coalesce(s.player_id, e.player_id)) FROM hunt_scores s
                FULL JOIN (SELECT player_id, hunt_id, SUM(points)::int8 AS points, COUNT(*) FILTER (WHERE kind = 'bonus') AS hunts,
                               COUNT(*) FILTER (WHERE kind = 'stop') AS stops, COUNT(*) FILTER (WHERE kind = 'badge') AS badges,
                               MAX(at_epoch) AS reached
                           FROM score_events GROUP BY player_id, hunt_id) e
                    ON e.player_id = s.player_id AND e.hunt_id = s.hunt_id
                WHERE s.points IS DISTINCT FROM e.points OR s.hunts IS DISTINCT FROM e.hunts
                    OR s.stops IS DISTINCT FROM e.stops OR s.badges IS DISTINCT FROM e.badges
                    OR s.reached IS DISTINCT FROM e.reached
                """)
            // Teams' running totals: every team's row as a rescore writes it, both ways.
            let teamTotals = { () async throws -> [Int64: String] in
                var rows: [Int64: String] = [:]
                for row in try await db.query(
                    "SELECT team_id, concat_ws('|', hunt_id, points, stops, completed, badges, reached) FROM team_scores",
                    logger: logger
                ).collect() {
                    let (team, text) = try row.decode((Int64, String).self)
                    rows[team] = text
                }
                return rows
            }
            let storedTeams = try await teamTotals()
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: logger)
            try await self.rescoreEveryone(db)
            var wrong = 0
            for row in try await db.query(totals, logger: logger).collect() {
                let (id, points) = try row.decode((Int64, Int).self)
                if stored[id] != points { wrong += 1 }
            }
            let rescoredTeams = try await teamTotals()
            var health = StoreHealth(
                integrity: invalid == 0 ? ["ok"] : ["\(invalid) stops with invalid geometry"],
                foreignKeyViolations: 0, players: players, checkIns: checkIns, stops: stops, missingPhotos: 0,
                playersWithWrongTotals: max(runningTotalsWrong, huntTotalsWrong, wrong))
            health.teamsWithWrongTotals =
                Set(storedTeams.keys).union(rescoredTeams.keys).filter {
                    storedTeams[$0] != rescoredTeams[$0]
                }.count
            return health
        }
        let files = try await read { db in
            try await db.query(
                """
                SELECT DISTINCT photo_file FROM checkins WHERE photo_file IS NOT NULL
                    AND player_id NOT IN (SELECT id FROM players WHERE erased = 1)
                """, logger: self.logger
            ).collect().map { try $0.decode(String.self) }
        }
        for file in files {
            switch try await photos.condition(of: file) {
            case .missing: health.missingPhotos += 1
            case .damaged: health.damagedPhotos += 1
            case .intact: break
            }
        }
        return health
    }
}

/// A session's row as `SessionsSQL` reads it.
struct FoundSession: Sendable {
    var credentials: Credentials
    /// Epoch seconds.
    var expiresAt: Double
    /// RFC 3339.
    var lastUsed: String

    /// The token hash and the session of a `SessionsSQL` row.
    static func decode(_ row: PostgresRow) throws -> (String, FoundSession) {
        let (hash, id, name, email, created, passwordHash, role, expires, lastUsed) = try row.decode(
            (String, Int64, String, String?, String, String?, String, Double, String).self)
        return (
            hash,
            FoundSession(
                credentials: PostGISStore.credentials(id, name, email, created, passwordHash, role),
                expiresAt: expires, lastUsed: lastUsed)
        )
    }
}
