import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore: LeagueCopySource, LeagueCopyTarget {
    /// The hunts and badges as stored.
    public func copiedCatalog() async throws -> HuntCatalog {
        let hunts = try await hunts().map(\.hunt)
        let badges = try await read { db in try Self.scoringCatalog(db).badges }
        var catalog = HuntCatalog(hunts: hunts)
        catalog.badges = badges
        return catalog
    }

    /// The fingerprint and stat stamp of the hunt files last synced.
    public func copiedSyncState() async throws -> [String: String] {
        try await read { db in
            var state: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT key, value FROM sync_state WHERE key IN ('hunts', 'hunts-stat')")
            {
                state[row[0] as String] = row[1] as String
            }
            return state
        }
    }

    /// A page of a table's rows, in its order.
    public func copiedRows(of table: CopiedTable, offset: Int, limit: Int) async throws -> [[CopiedValue]] {
        // A retry key's answer is kept without its check-in's rules (`RulesInAnswer`): copied whole.
        let columns = table.columns.map {
            table.name == "idempotency_keys" && $0.name == "answer" ? RulesInAnswer.keptAnswer : $0.name
        }
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(columns.joined(separator: ", ")) FROM \(table.name) k
                    ORDER BY \(table.order) LIMIT ? OFFSET ?
                    """,
                arguments: [limit, offset]
            ).map { row in
                table.columns.indices.map { index -> CopiedValue in
                    let value: DatabaseValue = row[index]
                    if value.isNull { return .null }
                    switch table.columns[index].kind {
                    case .integer: return .integer(row[index] as Int64)
                    case .real: return .real(row[index] as Double)
                    case .text: return .text(row[index] as String)
                    }
                }
            }
        }
    }

    /// Hunts, players and check-ins held, or an interrupted copy; nil when there is nothing.
    public func contentsBeforeCopy() async throws -> String? {
        try await read { db in
            let hunts = try Int.fetchOne(db, sql: "SELECT count(*) FROM hunts") ?? 0
            let players = try Int.fetchOne(db, sql: "SELECT count(*) FROM players") ?? 0
            let checkIns = try Int.fetchOne(db, sql: "SELECT count(*) FROM checkins") ?? 0
            let marked =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM sync_state WHERE key = ?",
                    arguments: [CopiedTable.incompleteMarker]) ?? 0
            if hunts + players + checkIns + marked == 0 { return nil }
            return "\(hunts) hunts, \(players) players, \(checkIns) check-ins"
                + (marked > 0 ? ", an interrupted copy" : "")
        }
    }

    /// Loads a league page by page (one transaction a page); the `copy-incomplete` mark stays in
    /// `sync_state` until the last page and the rescore are in, so `vsh doctor` reports an
    /// interrupted copy.
    public func load(from source: any LeagueCopySource, pageSize: Int) async throws -> [String: Int] {
        let catalog = try await source.copiedCatalog()
        let state = try await source.copiedSyncState()
        try await write { db in
            try db.execute(
                sql: "INSERT INTO sync_state(key, value) VALUES (?, 'yes')",
                arguments: [CopiedTable.incompleteMarker])
            try Self.replaceDefinitions(db, with: catalog, files: [:])
            for (key, value) in state {
                try db.execute(
                    sql:
                        "INSERT INTO sync_state(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, value])
            }
        }
        var counts: [String: Int] = [:]
        for table in CopiedTable.all {
            var offset = 0
            while true {
                let page = try await source.copiedRows(of: table, offset: offset, limit: pageSize)
                if !page.isEmpty {
                    try await write { db in
                        let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
                        let statement = try db.makeStatement(
                            sql: "INSERT INTO \(table.name)(\(table.columnList)) VALUES (\(marks))")
                        for row in page {
                            try statement.execute(
                                arguments: StatementArguments(
                                    row.map { value -> DatabaseValue in
                                        switch value {
                                        case .null: return .null
                                        case .integer(let v): return v.databaseValue
                                        case .real(let v): return v.databaseValue
                                        case .text(let v): return v.databaseValue
                                        }
                                    }))
                        }
                    }
                }
                offset += page.count
                if page.count < pageSize { break }
            }
            counts[table.name] = offset
        }
        try await write { db in
            // The copied retry keys' slots, in the file and in memory.
            try RetryKeySlots.fill(db)
            try self.retrySlots.load(db, force: true)
            try Self.rescoreEveryone(db)
            try db.execute(
                sql: "DELETE FROM sync_state WHERE key = ?", arguments: [CopiedTable.incompleteMarker])
        }
        return counts
    }
}
