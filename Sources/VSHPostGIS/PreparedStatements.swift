internal import Logging
internal import PostgresNIO

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
        WHERE player_id = $1::int8 AND hunt_id = $2::text AND verdict IN ('accepted', 'pending')
            AND state = 'accepted' AND stop_id IS NOT NULL
        GROUP BY stop_id
        """
}

/// A player's accepted or pending fixes just before and just after a time.
enum NeighboursSQL: PreparedSQL {
    static let name = "vsh_neighbours_2"
    static let sql = """
        (SELECT lat, lon, accuracy_m, fix_epoch, source, received_at FROM checkin_state
        WHERE player_id = $1::int8 AND verdict IN ('accepted', 'pending') AND state IN ('accepted', 'pending')
            AND fix_epoch IS NOT NULL AND fix_epoch <= $2::float8 AND id <> $3::int8
        ORDER BY fix_epoch DESC LIMIT 1)
        UNION ALL
        (SELECT lat, lon, accuracy_m, fix_epoch, source, received_at FROM checkin_state
        WHERE player_id = $1::int8 AND verdict IN ('accepted', 'pending') AND state IN ('accepted', 'pending')
            AND fix_epoch IS NOT NULL AND fix_epoch > $2::float8 AND id <> $3::int8
        ORDER BY fix_epoch ASC LIMIT 1)
        """
}

/// A check-in's row.
enum InsertCheckInSQL: PreparedSQL {
    static let name = "vsh_insert_checkin"
    static let sql = """
        INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
            accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules, pixel_sha256, phash,
            clock_epoch, overturns)
        VALUES ($1::int8, $2::text, $3::text, $4::text, $5::text, $6::text, $7::float8, $8::float8, $9::float8,
            $10::text, $11::float8, $12::text, $13::text, $14::text, $15::int8, $16::text, $17::text, $18::int8,
            $19::float8, $20::int8)
        RETURNING id
        """
}

/// A live session and its player, by token hash.
enum SessionSQL: PreparedSQL {
    static let name = "vsh_session"
    static let sql = """
        SELECT p.id, p.name, p.email, p.created_at, p.password_hash, p.role, s.expires_at, s.last_used_at
        FROM sessions s JOIN players p ON p.id = s.player_id
        WHERE s.token_hash = $1::text AND s.expires_at > $2::float8
        """
}

/// A player by id.
enum PlayerSQL: PreparedSQL {
    static let name = "vsh_player"
    static let sql =
        "SELECT id, name, email, created_at, password_hash, role FROM players WHERE id = $1::int8"
}
