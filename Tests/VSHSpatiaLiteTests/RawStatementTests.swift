import Foundation
import GRDB
import Testing
import VSHTestSupport

@testable import VSHSpatiaLite

/// The writer's small reads through SQLite's C API: the values bound and read are GRDB's, a
/// failure is a `DatabaseError` naming the statement, and the cached statement is left for GRDB
/// as GRDB left it.
@Suite struct RawStatementTests {
    let queue: DatabaseQueue

    init() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-raw-statement")
        queue = try DatabaseQueue(path: folder.appendingPathComponent("raw.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, tag TEXT);
                    INSERT INTO t VALUES (1, 'Zoë 🦊', 2.5, NULL), (2, 'Bo', NULL, 'x'), (3, 'Cy', -1e300, 'y');
                    """)
        }
    }

    static let byID =
        "SELECT name, score, tag, id FROM t WHERE id >= ? AND (? IS NULL OR tag = ?) ORDER BY id"

    @Test func readsWhatGRDBReads() throws {
        try queue.read { db in
            for (from, tag) in [(Int64(1), String?.none), (2, "x"), (1, "y"), (4, nil)] {
                var raw: [[String]] = []
                try RawStatement(db, Self.byID).rows([.integer(from), .text(tag), .text(tag)]) { row in
                    raw.append([
                        row.text(0) ?? "NULL", row.double(1).map { "\($0)" } ?? "NULL", row.text(2) ?? "NULL",
                        row.int64(3).map { "\($0)" } ?? "NULL",
                    ])
                    return true
                }
                let grdb = try Row.fetchAll(db, sql: Self.byID, arguments: [from, tag, tag]).map { row in
                    [
                        (row[0] as String?) ?? "NULL", (row[1] as Double?).map { "\($0)" } ?? "NULL",
                        (row[2] as String?) ?? "NULL", (row[3] as Int64?).map { "\($0)" } ?? "NULL",
                    ]
                }
                #expect(raw == grdb, "\(from) \(String(describing: tag))")
                #expect(!raw.isEmpty || from == 4)
            }
        }
    }

    @Test func aStatementLeftAfterItsFirstRowIsResetForGRDB() throws {
        try queue.read { db in
            let first = try RawStatement(db, Self.byID).first([.integer(1), .text(nil), .text(nil)]) {
                $0.text(0)
            }
            #expect(first == "Zoë 🦊")
            // The same cached statement through GRDB: from its first row, with GRDB's arguments.
            let names = try String.fetchAll(db.cachedStatement(sql: Self.byID), arguments: [2, nil, nil])
            #expect(names == ["Bo", "Cy"])
            let again = try RawStatement(db, Self.byID).first([.integer(3), .text(nil), .text(nil)]) {
                $0.text(0)
            }
            #expect(again == "Cy")
        }
    }

    /// An insert runs inside a transaction only: after SQLite rolled one back by itself, an insert
    /// would otherwise commit on its own.
    @Test func anInsertRunsOnlyInsideATransaction() throws {
        let sql = "INSERT INTO t(name, score, tag) VALUES (?, ?, ?)"
        queue.inDatabase { db in
            _ = #expect(throws: DatabaseError.self) {
                try RawStatement(db, sql).insert([.text("Dee"), .real(1), .text(nil)])
            }
        }
        try queue.inTransaction { db in
            try RawStatement(db, sql).insert([.text("Eve"), .real(nil), .text("z")])
            return .commit
        }
        let names = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY id") }
        #expect(names == ["Zoë 🦊", "Bo", "Cy", "Eve"])
        let eve = try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT score, tag FROM t WHERE name = 'Eve'")
        }
        #expect(eve?[0] == nil && eve?[1] == "z")
    }

    @Test func aFailureNamesTheStatement() throws {
        let sql = "SELECT abs(id - 9223372036854775807 - 2) FROM t WHERE id = ?"
        try queue.read { db in
            do {
                _ = try RawStatement(db, sql).first([.integer(1)]) { $0.int64(0) }
                Issue.record("expected an integer overflow")
            } catch let error as DatabaseError {
                #expect(error.sql == sql)
                #expect(error.message?.contains("integer overflow") == true, "\(error)")
            }
            // And the statement works again afterwards.
            #expect(try RawStatement(db, sql).first([.integer(99)]) { $0.int64(0) } == nil)
        }
    }
}
