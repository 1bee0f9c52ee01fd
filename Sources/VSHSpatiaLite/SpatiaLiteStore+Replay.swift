internal import CSpatiaLite
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
        try SpatiaLiteDatabase.attachSpatiaLite(db)
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
    /// and positions in it are readable by this user only. The copy goes on SIGTERM, SIGINT and
    /// SIGHUP too (`ScratchFolder`), and a copy left by a process that crashed is removed by
    /// the next dry run.
    public func dryRun<T: Sendable>(_ body: (any LeagueStore) async throws -> T) async throws -> T {
        let scratch = try ScratchFolder(prefix: "vsh-dry-run")
        defer { scratch.remove() }
        let path = scratch.path + "/" + ScratchFolder.fileName
        try await database.writeWithoutTransaction { try $0.execute(sql: "VACUUM INTO ?", arguments: [path]) }
        return try await body(try SpatiaLiteStore(path: path, connections: .single))
    }
}

/// A private folder (0700) under the temporary directory that does not outlive its process:
/// removed by `remove()`, by a terminating signal (SIGTERM, SIGINT, SIGHUP: a C handler removes
/// the folder's files and the folder, then the signal takes its default course), and, after a
/// crash or SIGKILL, by the next `ScratchFolder`
/// of the same prefix (the folder's name carries its process id).
final class ScratchFolder: @unchecked Sendable {
    let path: String
    /// The one file the folder holds (SQLite's -wal, -shm and -journal files beside it go too).
    static let fileName = "league.sqlite"

    init(prefix: String) throws {
        let temporary = FileManager.default.temporaryDirectory.path
        Self.sweep(temporary, prefix: prefix)
        path = temporary + "/\(prefix)-\(getpid())-\(UUID().uuidString)"
        // The handler first (a C handler, installed before the folder exists: a signal cannot
        // arrive between the two and leave the folder behind), then the folder.
        guard vsh_scratch_arm(path, Self.fileName) == 0 else {
            throw CocoaError(.fileWriteInvalidFileName)
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            vsh_scratch_disarm()
            throw error
        }
    }

    /// Removes the folder and gives the signals back their default course.
    func remove() {
        vsh_scratch_disarm()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes this user's folders of `prefix` whose process is gone (a crash left them).
    static func sweep(_ temporary: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for name in names where name.hasPrefix(prefix + "-") {
            let fields = name.dropFirst(prefix.count + 1).split(separator: "-", maxSplits: 1)
            guard let pid = fields.first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else { continue }
            let path = temporary + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_uid == getuid(), (info.st_mode & S_IFMT) == S_IFDIR else {
                continue
            }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}
