internal import CSpatiaLite
internal import GRDB

/// A cached read statement stepped through SQLite's C API, for the small reads the writer makes
/// for every check-in of a group (a player's neighbouring fixes, visited stops, name). GRDB's
/// cursor, its row and the boxed arguments cost more than SQLite's own work on such a read: in a
/// profile of device-fix check-ins, half of the two neighbouring-fix reads was outside
/// `sqlite3_step`.
///
/// Reads, and the group's inserts (`insert`), which run only inside a transaction: GRDB refuses a
/// statement after SQLite has rolled a transaction back by itself (a full disk), and an insert
/// stepped here then would commit on its own. vsh registers no GRDB transaction observer, the
/// other bookkeeping a write stepped here passes by. The statement is reset (and its bindings
/// cleared) after each use, so GRDB finds it as it left it.
struct RawStatement {
    private let handle: OpaquePointer
    private let db: Database
    private let sql: String

    /// The statement `sql`, from the connection's cache.
    init(_ db: Database, _ sql: String) throws {
        self.db = db
        self.sql = sql
        handle = try db.cachedStatement(sql: sql).sqliteStatement
    }

    /// A value for each parameter, in order (nil is NULL).
    enum Value {
        case integer(Int64?)
        case real(Double?)
        case text(String?)
    }

    /// Binds `values` to ?1, ?2, …, steps through the rows, calling `row` for each until it
    /// returns false, and resets the statement.
    func rows(_ values: [Value], _ row: (borrowing Columns) throws -> Bool) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (i, value) in values.enumerated() {
            let at = Int32(i + 1)
            let code: Int32
            switch value {
            case .integer(let v?): code = sqlite3_bind_int64(handle, at, v)
            case .real(let v?): code = sqlite3_bind_double(handle, at, v)
            case .text(let v?): code = sqlite3_bind_text(handle, at, v, -1, Self.transient)
            case .integer(nil), .real(nil), .text(nil): code = sqlite3_bind_null(handle, at)
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            if try !row(Columns(handle: handle)) { return }
        }
    }

    /// Binds `values` and runs the statement, an `INSERT`, inside the connection's transaction.
    func insert(_ values: [Value]) throws {
        guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "an insert outside a transaction", sql: sql)
        }
        try rows(values) { _ in true }
    }

    /// The first row's `read`, or nil when there is none.
    func first<T>(_ values: [Value], _ read: (borrowing Columns) throws -> T?) throws -> T? {
        var found: T?
        try rows(values) { columns in
            found = try read(columns)
            return false
        }
        return found
    }

    /// The current row's columns, by position from 0.
    struct Columns: ~Copyable {
        let handle: OpaquePointer

        func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
        func int64(_ i: Int32) -> Int64? { isNull(i) ? nil : sqlite3_column_int64(handle, i) }
        func double(_ i: Int32) -> Double? { isNull(i) ? nil : sqlite3_column_double(handle, i) }
        func text(_ i: Int32) -> String? {
            guard let bytes = sqlite3_column_text(handle, i) else { return nil }
            let count = Int(sqlite3_column_bytes(handle, i))
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    /// SQLite copies a bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
            sql: sql)
    }
}
