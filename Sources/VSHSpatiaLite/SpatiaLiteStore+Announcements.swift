public import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Records an announcement.
    public func announce(text: String, huntID: String?, by: String, at now: Date) async throws -> Announcement
    {
        let at = RFC3339.format(now)
        let id = try await write { db -> Int64 in
            try db.execute(
                sql: "INSERT INTO announcements(hunt_id, text, by_name, at) VALUES (?, ?, ?, ?)",
                arguments: [huntID, text, by, at])
            return db.lastInsertedRowID
        }
        return Announcement(id: id, huntID: huntID, text: text, by: by, at: RFC3339.parse(at) ?? now)
    }

    /// The latest announcements, newest first.
    public func announcements(limit: Int) async throws -> [Announcement] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, hunt_id, text, by_name, at FROM announcements ORDER BY id DESC LIMIT ?",
                arguments: [limit]
            ).map { row in
                Announcement(
                    id: row[0], huntID: row[1], text: row[2], by: row[3],
                    at: RFC3339.parse(row[4] as String) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }
}
