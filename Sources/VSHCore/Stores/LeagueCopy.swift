/// Moving a whole league between backends (`vsh db copy`): the hunts and badges as a catalog,
/// then the audit trail and the accounts table by table, rows as they are (ids, rule results,
/// reviews, sessions, retry keys, reset tokens), then a rescore on the target. Scores are not
/// copied: they follow from the check-ins and reviews, and the rescore proves it.

/// One value of a copied row.
public enum CopiedValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A table both schemas share, with the columns copied and the order rows are read in.
public struct CopiedTable: Sendable {
    /// How a column's values are read and written.
    public enum Kind: Sendable { case integer, real, text }

    /// The table's name.
    public let name: String
    /// The copied columns, in order.
    public let columns: [(name: String, kind: Kind)]
    /// The ORDER BY of a stable read (the primary key).
    public let order: String
    /// Whether `id` is an identity the target must carry on from (PostgreSQL's sequence).
    public let hasIdentity: Bool

    /// The column names, comma-separated.
    public var columnList: String { columns.map(\.name).joined(separator: ", ") }

    /// The tables, parents before children.
    public static let all: [CopiedTable] = [
        CopiedTable(
            name: "players",
            columns: [
                ("id", .integer), ("name", .text), ("name_key", .text), ("name_lookalike", .text),
                ("email", .text), ("created_at", .text),
                ("password_hash", .text), ("role", .text), ("avatar_file", .text), ("banned", .integer),
                ("erased", .integer),
            ], order: "id", hasIdentity: true),
        CopiedTable(
            name: "hunt_members",
            columns: [("hunt_id", .text), ("player_id", .integer), ("joined_at", .text)],
            order: "hunt_id, player_id", hasIdentity: false),
        CopiedTable(
            name: "teams",
            columns: [
                ("id", .integer), ("hunt_id", .text), ("name", .text), ("name_key", .text),
                ("join_code", .text),
                ("created_at", .text),
            ],
            order: "id", hasIdentity: true),
        CopiedTable(
            name: "team_members",
            columns: [
                ("team_id", .integer), ("hunt_id", .text), ("player_id", .integer), ("joined_at", .text),
            ],
            order: "hunt_id, player_id", hasIdentity: false),
        CopiedTable(
            name: "adjustments",
            columns: [
                ("id", .integer), ("player_id", .integer), ("team_id", .integer), ("hunt_id", .text),
                ("points", .integer), ("reason", .text), ("by_name", .text), ("at", .text),
                ("at_epoch", .real),
            ],
            order: "id", hasIdentity: true),
        CopiedTable(
            name: "announcements",
            columns: [
                ("id", .integer), ("hunt_id", .text), ("text", .text), ("by_name", .text), ("at", .text),
            ],
            order: "id", hasIdentity: true),
        CopiedTable(
            name: "checkins",
            columns: [
                ("id", .integer), ("player_id", .integer), ("received_at", .text), ("source", .text),
                ("photo_file", .text), ("photo_sha256", .text), ("image_sha256", .text),
                ("pixel_sha256", .text), ("phash", .integer), ("clock_epoch", .real), ("lat", .real),
                ("lon", .real), ("accuracy_m", .real), ("fix_time", .text), ("fix_epoch", .real),
                ("hunt_id", .text), ("stop_id", .text), ("verdict", .text), ("points", .integer),
                ("rules", .text), ("overturns", .integer), ("team_id", .integer), ("answer_right", .integer),
            ], order: "id", hasIdentity: true),
        CopiedTable(
            name: "featured_photos",
            columns: [("checkin_id", .integer), ("by_name", .text), ("at", .text)],
            order: "checkin_id", hasIdentity: false),
        CopiedTable(
            name: "reviews",
            columns: [
                ("id", .integer), ("checkin_id", .integer), ("decision", .text), ("reason", .text),
                ("moderator", .text), ("decided_at", .text),
            ], order: "id", hasIdentity: true),
        CopiedTable(
            name: "sessions",
            columns: [
                ("token_hash", .text), ("player_id", .integer), ("created_at", .text), ("expires_at", .real),
                ("last_used_at", .text),
            ], order: "token_hash", hasIdentity: false),
        CopiedTable(
            name: "idempotency_keys",
            columns: [
                ("player_id", .integer), ("key", .text), ("fingerprint", .text), ("checkin_id", .integer),
                ("answer", .text),
            ], order: "player_id, key", hasIdentity: false),
        CopiedTable(
            name: "password_resets",
            columns: [
                ("token_hash", .text), ("player_id", .integer), ("created_at", .text), ("expires_at", .real),
                ("used_at", .text),
            ], order: "token_hash", hasIdentity: false),
    ]

    /// The `sync_state` key a target holds while a copy into it is under way.
    public static let incompleteMarker = "copy-incomplete"
}

/// A league a copy reads from.
public protocol LeagueCopySource: LeagueStore {
    /// The hunts and badges as stored.
    func copiedCatalog() async throws -> HuntCatalog
    /// The `sync_state` values that say which hunt files the definitions came from.
    func copiedSyncState() async throws -> [String: String]
    /// Up to `limit` rows of a table after the first `offset`, in the table's order.
    func copiedRows(of table: CopiedTable, offset: Int, limit: Int) async throws -> [[CopiedValue]]
}

/// A league a copy writes into.
public protocol LeagueCopyTarget: LeagueStore {
    /// What the league already holds, in words ("3 players, 12 check-ins"), or nil when empty.
    func contentsBeforeCopy() async throws -> String?
    /// Writes the catalog, the sync state and every table's rows (pulled a page at a time from
    /// `source`), then rescores everyone.
    /// - Returns: the rows copied per table.
    func load(from source: any LeagueCopySource, pageSize: Int) async throws -> [String: Int]
}

/// Copies one league into an empty one.
public enum LeagueCopier {
    /// How a copy ended.
    public struct Summary: Sendable, Equatable {
        /// Rows copied per table.
        public var rows: [String: Int]
        /// Photos and pictures copied.
        public var photos: Int
    }

    /// Copies `source` into `target` (refused, with `CopyError.targetNotEmpty`, when the
    /// target holds anything), photos first (content-addressed, so a failed copy leaves only
    /// unreferenced files), then the league.
    public static func copy(
        from source: any LeagueCopySource, photos sourcePhotos: any PhotoStore,
        to target: any LeagueCopyTarget,
        photos targetPhotos: any PhotoStore, pageSize: Int = 500
    ) async throws -> Summary {
        if let contents = try await target.contentsBeforeCopy() {
            throw CopyError.targetNotEmpty(location: target.location, contents: contents)
        }
        var copied = 0
        for key in try await sourcePhotos.keys() {
            guard let bytes = try await sourcePhotos.get(key) else { continue }
            let sha = String(key.split(separator: "/").last?.split(separator: ".").first ?? "")
            try await targetPhotos.put(bytes, sha256: sha, durable: false)
            copied += 1
        }
        try await targetPhotos.flush()
        let rows = try await target.load(from: source, pageSize: pageSize)
        return Summary(rows: rows, photos: copied)
    }
}

/// Why a copy did not start.
public enum CopyError: Error, Equatable, CustomStringConvertible, ClassifiedError, Sendable {
    case targetNotEmpty(location: String, contents: String)

    /// A refused target is an invalid request: nothing was written.
    public var errorKind: ErrorKind { .invalidRequest }

    /// The refusal, naming the target and what it holds.
    public var description: String {
        switch self {
        case .targetNotEmpty(let location, let contents):
            return "\(location) is not empty (\(contents)); vsh db copy writes only into an empty database"
        }
    }
}

/// A store that can lend a view of itself whose writes are all thrown away: a dry run
/// (`vsh replay --dry-run`) decides and records as for real, and nothing of it stays.
public protocol DryRunStore: LeagueStore {
    /// Runs `body` on the view; everything it wrote is gone when this returns or throws. The view
    /// is for one task at a time.
    func dryRun<T: Sendable>(_ body: (any LeagueStore) async throws -> T) async throws -> T
}
