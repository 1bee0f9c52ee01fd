import Foundation
internal import PostgresNIO
public import VSHCore

extension PostGISStore: LeagueCopySource, LeagueCopyTarget {
    /// The hunts and badges as stored.
    public func copiedCatalog() async throws -> HuntCatalog {
        let hunts = try await hunts().map(\.hunt)
        let badges = try await read { db in try await self.scoringCatalog(db).badges }
        var catalog = HuntCatalog(hunts: hunts)
        catalog.badges = badges
        return catalog
    }

    /// The fingerprint and stat stamp of the hunt files last synced.
    public func copiedSyncState() async throws -> [String: String] {
        try await read { db in
            var state: [String: String] = [:]
            for row in try await db.query(
                "SELECT key, value FROM sync_state WHERE key IN ('hunts', 'hunts-stat')", logger: self.logger
            ).collect() {
                let (key, value) = try row.decode((String, String).self)
                state[key] = value
            }
            return state
        }
    }

    /// A page of a table's rows, in its order.
    public func copiedRows(of table: CopiedTable, offset: Int, limit: Int) async throws -> [[CopiedValue]] {
        try await read { db in
            let sql =
                "SELECT \(table.columnList) FROM \(table.name) ORDER BY \(table.order) LIMIT \(limit) OFFSET \(offset)"
            return try await db.query(PostgresQuery(unsafeSQL: sql), logger: self.logger).collect().map {
                row in
                var values: [CopiedValue] = []
                for (index, cell) in row.enumerated() {
                    switch table.columns[index].kind {
                    case .integer:
                        values.append(try cell.decode(Int64?.self).map(CopiedValue.integer) ?? .null)
                    case .real: values.append(try cell.decode(Double?.self).map(CopiedValue.real) ?? .null)
                    case .text: values.append(try cell.decode(String?.self).map(CopiedValue.text) ?? .null)
                    }
                }
                return values
            }
        }
    }

    /// Hunts, players and check-ins held; nil when there is nothing.
    public func contentsBeforeCopy() async throws -> String? {
        try await read { db in
            let row = try await db.query(
                """
                SELECT (SELECT count(*) FROM hunts), (SELECT count(*) FROM players), (SELECT count(*) FROM checkins)
                """, logger: self.logger
            ).collect().first
            let (hunts, players, checkIns) = try row?.decode((Int, Int, Int).self) ?? (0, 0, 0)
            if hunts + players + checkIns == 0 { return nil }
            return "\(hunts) hunts, \(players) players, \(checkIns) check-ins"
        }
    }

    /// Loads a league in one transaction, pulling pages from the source as it goes: a copy that
    /// fails half-way leaves the database as empty as it was. Identities carry on after the
    /// copied ids.
    public func load(from source: any LeagueCopySource, pageSize: Int) async throws -> [String: Int] {
        let catalog = try await source.copiedCatalog()
        let state = try await source.copiedSyncState()
        return try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: self.logger)
            try await self.replaceDefinitions(db, with: catalog, files: [:])
            for (key, value) in state { try await self.setValue(key, value, db) }
            var counts: [String: Int] = [:]
            for table in CopiedTable.all {
                var offset = 0
                while true {
                    let page = try await source.copiedRows(of: table, offset: offset, limit: pageSize)
                    if !page.isEmpty { try await self.insert(page, into: table, db) }
                    offset += page.count
                    if page.count < pageSize { break }
                }
                counts[table.name] = offset
                if table.hasIdentity {
                    try await db.query(
                        PostgresQuery(
                            unsafeSQL: """
                                SELECT setval(pg_get_serial_sequence('\(table.name)', 'id'),
                                    coalesce((SELECT max(id) FROM \(table.name)), 0) + 1, false)
                                """), logger: self.logger)
                }
            }
            try await self.rescoreEveryone(db)
            return counts
        }
    }

    /// One multi-row INSERT of a page.
    private func insert(_ page: [[CopiedValue]], into table: CopiedTable, _ db: PostgresConnection)
        async throws
    {
        var bindings = PostgresBindings()
        var tuples: [String] = []
        var number = 0
        for row in page {
            var marks: [String] = []
            for value in row {
                number += 1
                marks.append("$\(number)")
                switch value {
                case .null: bindings.appendNull()
                case .integer(let v): bindings.append(v)
                case .real(let v): bindings.append(v)
                case .text(let v): bindings.append(v)
                }
            }
            tuples.append("(" + marks.joined(separator: ", ") + ")")
        }
        let sql = "INSERT INTO \(table.name)(\(table.columnList)) VALUES " + tuples.joined(separator: ", ")
        try await db.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }
}
