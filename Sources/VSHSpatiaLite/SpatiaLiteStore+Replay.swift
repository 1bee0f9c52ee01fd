import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// The stops a segment crosses (`ST_Intersects` with the line between the
    /// two positions, candidates from the R*Tree box of the segment), with the
    /// fraction along the segment of the middle of the part inside each stop.
    public func stops(crossedBy a: Coordinate, _ b: Coordinate, inHunt huntID: String?) async throws
        -> [CrossedStop]
    {
        try await read { db in try Self.crossed(db, Segment(from: a, to: b), huntID: huntID) }
    }

    /// Every segment's crossed stops, in one read transaction.
    public func stops(crossedBy segments: [Segment], inHunt huntID: String?) async throws -> [[CrossedStop]] {
        try await read { db in try segments.map { try Self.crossed(db, $0, huntID: huntID) } }
    }

    static func crossed(_ db: Database, _ segment: Segment, huntID: String?) throws -> [CrossedStop] {
        let (a, b) = (segment.from, segment.to)
        return try Row.fetchAll(
            try db.cachedStatement(sql: Self.crossingSQL),
            arguments: [a.longitude, a.latitude, b.longitude, b.latitude, huntID]
        ).map { row in
            CrossedStop(stop: Self.reference(row), fraction: min(1, max(0, row[3] as Double? ?? 0.5)))
        }
    }

    static let crossingSQL = """
        SELECT s.hunt_id, s.id, s.name,
            ST_Line_Locate_Point(l.line, ST_Centroid(ST_Intersection(s.geom, l.line))) AS fraction
        FROM stops s JOIN hunts h ON h.id = s.hunt_id,
            (SELECT MakeLine(MakePoint(?1, ?2, 4326), MakePoint(?3, ?4, 4326)) AS line) l
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom
                WHERE xmax >= MIN(?1, ?3) AND xmin <= MAX(?1, ?3) AND ymax >= MIN(?2, ?4) AND ymin <= MAX(?2, ?4))
          AND ST_Intersects(s.geom, l.line) = 1
          AND (?5 IS NULL OR s.hunt_id = ?5)
        ORDER BY h.position, s.position
        """

}

extension SpatiaLiteStore: DryRunStore {
    /// Runs `body` on a private copy of this database (`VACUUM INTO` a file in a new 0700 folder
    /// under the temporary directory), removed afterwards: the players' names, e-mail addresses
    /// and positions in it are readable by this user only.
    public func dryRun<T: Sendable>(_ body: (any LeagueStore) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vsh-dry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("league.sqlite").path
        try await database.writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [path]) }
        return try await body(try SpatiaLiteStore(path: path, connections: .single))
    }
}
