public import Foundation
internal import PostgresNIO
public import VSHCore

extension PostGISStore {
    /// Records an announcement.
    public func announce(text: String, huntID: String?, by: String, at now: Date) async throws -> Announcement
    {
        let at = RFC3339.format(now)
        let id = try await transaction { db -> Int64 in
            let rows = try await db.query(
                """
                INSERT INTO announcements(hunt_id, text, by_name, at) VALUES (\(huntID), \(text), \(by), \(at))
                RETURNING id
                """, logger: self.logger
            ).collect()
            guard let row = rows.first else { return 0 }
            return try row.decode(Int64.self)
        }
        return Announcement(id: id, huntID: huntID, text: text, by: by, at: RFC3339.parse(at) ?? now)
    }

    /// The latest announcements, newest first.
    public func announcements(limit: Int) async throws -> [Announcement] {
        try await read { db in
            try await db.query(
                "SELECT id, hunt_id, text, by_name, at FROM announcements ORDER BY id DESC LIMIT \(limit)",
                logger: self.logger
            ).collect().map { row in
                let (id, hunt, text, by, at) = try row.decode((Int64, String?, String, String, String).self)
                return Announcement(
                    id: id, huntID: hunt, text: text, by: by,
                    at: RFC3339.parse(at) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }
}
