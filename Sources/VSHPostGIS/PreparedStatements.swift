internal import Logging
internal import PostgresNIO
import VSHCore
import VSHSQL

/// The SQL of a statement on the check-in's hot path. Every parameter carries a cast (`$1::float8`)
/// so that PostgreSQL knows its type when it prepares the statement.
protocol PreparedSQL {
    /// The statement's name on each connection (short: PostgreSQL keeps 63 bytes of it).
    static var name: String { get }
    /// The SQL, with `$1`, `$2`, … for the values.
    static var sql: String { get }
}

/// A statement PostgreSQL parses and plans once a connection instead of once an execution
/// (`pg_stat_statements` showed planning taking longer than running on the check-in path).
struct Prepared<SQL: PreparedSQL>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var name: String { SQL.name }
    static var sql: String { SQL.sql }
    private var bindings = PostgresBindings()

    /// The statement with these values for `$1`, `$2`, … (nil: NULL).
    init(_ values: (any PostgresThrowingDynamicTypeEncodable)?...) throws {
        for value in values {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
    }

    /// The statement with these values for `$1`, `$2`, … in order.
    init(values: [any PostgresThrowingDynamicTypeEncodable]) throws {
        for value in values { try bindings.append(value) }
    }

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension PostgresConnection {
    /// Runs a prepared statement and collects its rows.
    func rows<SQL: PreparedSQL>(_ statement: Prepared<SQL>, logger: Logger) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}

/// The stops covering a point, in hunt then stop order.
enum CoveringSQL: PreparedSQL {
    static let name = "vsh_covering"
    static let sql = """
        SELECT s.hunt_id, s.id, s.name
        FROM stops s JOIN hunts h ON h.id = s.hunt_id
        WHERE ST_Covers(s.geom, ST_SetSRID(ST_MakePoint($1::float8, $2::float8), 4326))
          AND ($3::text IS NULL OR s.hunt_id = $3::text)
        ORDER BY h.position, s.position
        """
}

/// A player's first accepted visit to each stop of a hunt.
enum VisitedSQL: PreparedSQL {
    static let name = "vsh_visited"
    static let sql = """
        SELECT stop_id, MIN(fix_epoch) FROM checkin_state
        WHERE player_id = $1::int8 AND hunt_id = $2::text AND \(CheckInStateSQL.canCount())
            AND \(CheckInStateSQL.counts()) AND stop_id IS NOT NULL
        GROUP BY stop_id
        """
}

/// A player's accepted or pending fixes just before and just after a time.
enum NeighboursSQL: PreparedSQL {
    static let name = "vsh_neighbours_4"
    static let sql = """
        (SELECT lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
        WHERE player_id = $1::int8 AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive())
            AND fix_epoch IS NOT NULL AND fix_epoch <= $2::float8 AND id <> $3::int8
        ORDER BY fix_epoch DESC LIMIT 1)
        UNION ALL
        (SELECT lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
        WHERE player_id = $1::int8 AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive())
            AND fix_epoch IS NOT NULL AND fix_epoch > $2::float8 AND id <> $3::int8
        ORDER BY fix_epoch ASC LIMIT 1)
        """
}

/// A picture's first check-in and its player ($1 the file's SHA-256, $2 its pixels'): the least of
/// the ids the two indexes find for it. `OFFSET 0` keeps the union from being pulled up, where
/// PostgreSQL would turn `min` into a walk of every check-in in id order until one with the
/// picture came (the whole table for a new picture).
enum PhotoFirstUseSQL: PreparedSQL {
    static let name = "vsh_photo_first_use"
    static let sql = """
        SELECT id, player_id FROM checkins WHERE id = (SELECT min(u.id) FROM (
            SELECT id FROM checkins WHERE image_sha256 = $1::text
            UNION ALL SELECT id FROM checkins WHERE pixel_sha256 = $2::text OFFSET 0) AS u)
        """
}

/// A player's ($3) earliest use of a picture that still holds it, other than check-in $4: only
/// that player's uses are read, through the indexes keyed by picture and player (schema version
/// 28), however many players sent the picture.
enum PhotoStandingUseSQL: PreparedSQL {
    static let name = "vsh_photo_standing_use"
    static let sql = """
        SELECT s.id FROM checkin_state s WHERE s.id IN (
            SELECT id FROM checkins WHERE image_sha256 = $1::text AND player_id = $3::int8
            UNION ALL SELECT id FROM checkins WHERE pixel_sha256 = $2::text AND player_id = $3::int8)
        AND \(CheckInStateSQL.holdsItsPhoto("s.")) AND s.id <> $4::int8
        ORDER BY s.id LIMIT 1
        """
}

/// The nearest near copy of a perceptual hash ($1) among other players' (not $6) pictures that
/// are not the same picture ($7 file, $8 pixels), ties to the earliest: among the rows one of
/// whose four 16-bit quarters of the hash is within `NearCopySQL.quarterRadius` bits of the
/// asked hash's ($2 … $5: every such value, `NearCopySQL.near(_:)`), through an index on each
/// quarter that holds the hash (schema version 29). Two hashes within `NearCopy.maxBits` (10)
/// differ in at most 2 bits in one of the quarters at least, so no near copy is left out, and a
/// league's other pictures are not each compared (a scan of every check-in took 38-65 ms at
/// 100,000 photos). Each value is looked up on its own (`OFFSET 0` keeps the lookups from being
/// turned into a join, which PostgreSQL planned as a scan of the table), and only the rows within
/// `maxBits` are read from the table.
enum NearCopySQL: PreparedSQL {
    static let name = "vsh_near_copy"
    static let sql = """
        SELECT n.id, n.bits FROM (\(
            (0..<4).map { quarter in
                """
                SELECT m.id, m.bits FROM unnest($\(quarter + 2)::int8[]) AS v(q), LATERAL (
                    SELECT id, bit_count((phash # $1::int8)::bit(64))::int8 AS bits FROM checkins
                    WHERE phash IS NOT NULL AND \(quarterSQL[quarter]) = v.q
                        AND bit_count((phash # $1::int8)::bit(64)) <= \(NearCopy.maxBits) OFFSET 0) AS m
                """
            }.joined(separator: " UNION "))
        ) AS n, LATERAL (
            SELECT 1 FROM checkins c WHERE c.id = n.id AND c.player_id <> $6::int8
                AND c.image_sha256 IS DISTINCT FROM $7::text AND c.pixel_sha256 IS DISTINCT FROM $8::text
            OFFSET 0) AS other
        ORDER BY n.bits, n.id LIMIT 1
        """

    /// The quarters of `phash`, high to low, as the indexes of schema version 29 hold them.
    static let quarterSQL = [
        "((phash >> 48) & 65535)", "((phash >> 32) & 65535)", "((phash >> 16) & 65535)",
        "(phash & 65535)",
    ]

    /// Bits a quarter of two near copies' hashes differ in, at most, in one quarter at least:
    /// if every quarter differed in more, the hashes would differ in more than `maxBits`.
    static let quarterRadius = NearCopy.maxBits / 4

    /// For each quarter of `hash`, high to low, every 16-bit value within `quarterRadius` bits of it.
    static func near(_ hash: UInt64) -> [[Int64]] {
        (0..<4).map { quarter in
            let value = (hash >> UInt64(48 - 16 * quarter)) & 0xFFFF
            var found: [Int64] = []
            func flip(_ value: UInt64, from bit: Int, left: Int) {
                found.append(Int64(value))
                guard left > 0 else { return }
                for b in bit..<16 { flip(value ^ (1 << UInt64(b)), from: b + 1, left: left - 1) }
            }
            flip(value, from: 0, left: quarterRadius)
            return found
        }
    }
}

/// The definitions' generation, read for the requests that ask for a hunt (`hunts()`).
enum GenerationSQL: PreparedSQL {
    static let name = "vsh_generation"
    static let sql = "SELECT value FROM sync_state WHERE key = 'generation'"
}

/// A check-in's row.
enum InsertCheckInSQL: PreparedSQL {
    static let name = "vsh_insert_checkin_3"
    static let sql = """
        INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
            accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules, pixel_sha256, phash,
            clock_epoch, overturns, answer_right, hunt_revision, team_id)
        VALUES ($1::int8, $2::text, $3::text, $4::text, $5::text, $6::text, $7::float8, $8::float8, $9::float8,
            $10::text, $11::float8, $12::text, $13::text, $14::text, $15::int8, $16::text, $17::text, $18::int8,
            $19::float8, $20::int8, $21::int8, (SELECT revision FROM hunts WHERE id = $12::text),
            (SELECT team_id FROM team_members WHERE hunt_id = $12::text AND player_id = $1::int8))
        RETURNING id, team_id
        """
}

/// Sessions and their players, by token hash (expired ones too: each lookup of a batch has its
/// own clock).
enum SessionsSQL: PreparedSQL {
    static let name = "vsh_sessions"
    static let sql = """
        SELECT s.token_hash, p.id, p.name, p.email, p.created_at, p.password_hash, p.role, s.expires_at,
            s.last_used_at
        FROM sessions s JOIN players p ON p.id = s.player_id
        WHERE s.token_hash = ANY($1::text[]) AND p.banned = 0
        """
}

/// A player by id.
enum PlayerSQL: PreparedSQL {
    static let name = "vsh_player"
    static let sql =
        "SELECT id, name, email, created_at, password_hash, role FROM players WHERE id = $1::int8"
}

/// A group's locks, the definitions' generation and the players' names (`vsh_open_group`, schema
/// version 7): a row with no player id carries the generation.
enum OpenGroupSQL: PreparedSQL {
    static let name = "vsh_open_group"
    static let sql = "SELECT player_id, value FROM vsh_open_group($1::int8, $2::int8[], $3::int8[])"
}

/// The stops covering each of a group's positions (ordinal from 1), in hunt then stop order; a
/// hunt of "" is any hunt.
enum GroupCoveringSQL: PreparedSQL {
    static let name = "vsh_group_covering"
    static let sql = """
        SELECT q.ordinal, s.hunt_id, s.id, s.name
        FROM unnest($1::float8[], $2::float8[], $3::text[]) WITH ORDINALITY AS q(lon, lat, hunt, ordinal)
        JOIN stops s ON ST_Covers(s.geom, ST_SetSRID(ST_MakePoint(q.lon, q.lat), 4326))
            AND (q.hunt = '' OR s.hunt_id = q.hunt)
        JOIN hunts h ON h.id = s.hunt_id
        ORDER BY q.ordinal, h.position, s.position
        """
}

/// Players' score events, each player's in their order.
enum GroupEventsSQL: PreparedSQL {
    static let name = "vsh_group_events"
    static let sql = """
        SELECT player_id, kind, hunt_id, stop_id, badge_id, points, at_epoch, checkin_id FROM score_events
        WHERE player_id = ANY($1::int8[]) ORDER BY player_id, id
        """
}

/// Each player's latest accepted or pending check-in with a fix time (by fix time; among check-ins
/// of one fix time, any: all of them have smaller ids than the group's, drawn under the player's
/// lock, so only the time matters to `scoreGroup`), from the live check-ins' index.
enum GroupLatestSQL: PreparedSQL {
    static let name = "vsh_group_latest"
    static let sql = """
        SELECT q.player, l.id, l.fix_epoch FROM unnest($1::int8[]) AS q(player)
        CROSS JOIN LATERAL (
            SELECT id, fix_epoch FROM checkins
            WHERE player_id = q.player AND \(CheckInStateSQL.canCount()) AND fix_epoch IS NOT NULL
            ORDER BY fix_epoch DESC LIMIT 1
        ) AS l
        """
}

/// Accepted check-ins that may count for a badge of days in a row: for each (player, check-in
/// left out, from, to) (ordinal from 1), those whose clock (else fix) time is in the range.
enum GroupDayCandidatesSQL: PreparedSQL {
    static let name = "vsh_group_days"
    static let sql = """
        SELECT q.ordinal, s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch
        FROM unnest($1::int8[], $2::int8[], $3::float8[], $4::float8[]) WITH ORDINALITY
            AS q(player, excluded, low, high, ordinal)
        JOIN checkins c ON c.player_id = q.player AND \(CheckInStateSQL.canCount("c."))
            AND c.stop_id IS NOT NULL AND c.hunt_id IS NOT NULL AND c.fix_epoch IS NOT NULL
            AND c.id <> q.excluded AND coalesce(c.clock_epoch, c.fix_epoch) BETWEEN q.low AND q.high
        JOIN checkin_state s ON s.id = c.id AND \(CheckInStateSQL.counts("s."))
        """
}

/// `NeighboursSQL` for many (player, time, excluded check-in) at once (ordinal from 1): the fix
/// just before, then the one just after.
enum GroupNeighboursSQL: PreparedSQL {
    static let name = "vsh_group_neighbours_3"
    static let sql = """
        SELECT q.ordinal, n.lat, n.lon, n.accuracy_m, n.fix_epoch, n.source, n.received_at, n.hunt_id
        FROM unnest($1::int8[], $2::float8[], $3::int8[]) WITH ORDINALITY AS q(player, at, excluded, ordinal)
        CROSS JOIN LATERAL (
            (SELECT 0 AS side, lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
            WHERE player_id = q.player AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive())
                AND fix_epoch IS NOT NULL AND fix_epoch <= q.at AND id <> q.excluded
            ORDER BY fix_epoch DESC LIMIT 1)
            UNION ALL
            (SELECT 1 AS side, lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
            WHERE player_id = q.player AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive())
                AND fix_epoch IS NOT NULL AND fix_epoch > q.at AND id <> q.excluded
            ORDER BY fix_epoch ASC LIMIT 1)
        ) AS n
        ORDER BY q.ordinal, n.side
        """
}

/// The answers kept under these (player, key) pairs.
enum GroupRetriesSQL: PreparedSQL {
    static let name = "vsh_group_retries"
    static let sql = """
        SELECT k.player_id, k.key, k.checkin_id, k.fingerprint, k.answer
        FROM idempotency_keys k JOIN unnest($1::int8[], $2::text[]) AS q(player, key)
            ON k.player_id = q.player AND k.key = q.key
        """
}

/// A group's check-ins, one row for each element of the arrays, in order (`InsertColumns`).
enum GroupInsertSQL: PreparedSQL {
    static let name = "vsh_group_insert_3"
    static let sql = """
        INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
            accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules, pixel_sha256, phash,
            clock_epoch, answer_right, hunt_revision, team_id)
        SELECT p, r, so, NULLIF(f, ''), NULLIF(fs, ''), NULLIF(i, ''), NULLIF(la, 'NaN'), NULLIF(lo, 'NaN'),
            NULLIF(a, 'NaN'), NULLIF(ft, ''), NULLIF(fe, 'NaN'), NULLIF(h, ''), NULLIF(st, ''), v, pt, ru,
            NULLIF(px, ''), CASE WHEN hp THEN ph END, c, NULLIF(an, -1),
            (SELECT revision FROM hunts WHERE id = NULLIF(h, '')),
            (SELECT m.team_id FROM team_members m WHERE m.hunt_id = NULLIF(h, '') AND m.player_id = p)
        FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[],
            $8::float8[], $9::float8[], $10::text[], $11::float8[], $12::text[], $13::text[], $14::text[],
            $15::int8[], $16::text[], $17::text[], $18::int8[], $19::bool[], $20::float8[], $21::int8[])
            AS t(p, r, so, f, fs, i, la, lo, a, ft, fe, h, st, v, pt, ru, px, ph, hp, c, an)
        RETURNING id, team_id
        """
}
