public import Foundation
internal import GRDB
public import VSHCore

/// An infrastructure failure of the database: what went wrong, where, with the
/// SQLite result code, the statement and the underlying error (as GRDB's
/// `DatabaseError` carries them). The message says what to do where there is something to do.
public struct StoreError: Error, ClassifiedError, LocalizedError, CustomStringConvertible, Sendable {
    /// SQLite's primary result code (5 = busy, 26 = not a database, ...), or 0.
    public let code: Int32
    /// What went wrong, in words.
    public let message: String
    /// The database file.
    public let path: String
    /// The SQL that failed, when a statement did.
    public let sql: String?
    /// The error this one wraps, described (GRDB's or SQLite's own message).
    public let cause: String?

    /// An error from its parts.
    public init(code: Int32, message: String, path: String, sql: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.sql = sql
        self.cause = cause
    }

    /// `path: message`: one line for a person (the SQL and the cause are for logs and tests).
    public var description: String { "\(path): \(message)" }
    /// The one-line description.
    public var errorDescription: String? { description }

    /// Busy, invalid data (not a database, or damaged), unavailable input (cannot open), a storage
    /// failure (a full disk, an I/O error, a read-only file), else an internal failure.
    public var errorKind: ErrorKind {
        switch code {
        case 5, 6: return .busy  // SQLITE_BUSY, SQLITE_LOCKED
        case 11, 26: return .invalidData  // SQLITE_CORRUPT, SQLITE_NOTADB
        case 14: return .unavailableInput  // SQLITE_CANTOPEN
        case 8, 10, 13: return .storageFailure  // SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
        default: return .internalFailure
        }
    }

    /// Wraps any error thrown by GRDB or SQLite, keeping the result code.
    static func wrap(_ error: any Error, path: String) -> any Error {
        if error is StoreError || error is HuntFileErrors || error is LeagueError || error is PlayerNameError
            || error is PhotoError
        {
            return error
        }
        if let error = error as? DatabaseError {
            var code = error.resultCode.primaryResultCode.rawValue
            // A write refused for want of space is often an I/O error (the WAL index cannot grow):
            // say what it is when the disk has no room left.
            if code == 10, path != ":memory:", freeBytes(beside: path).map({ $0 < 1 << 16 }) == true {
                code = 13
            }
            let message: String
            switch code {
            case 5, 6: message = "the database is busy (another vsh is writing); try again"
            case 11, 26:
                message = "not a vsh database, or it is damaged (\(error.message ?? "SQLite error \(code)"))"
            case 14: message = "cannot open the database file (does its folder exist and is it writable?)"
            case 13: message = "the disk is full: nothing was written (free some space and try again)"
            case 10:
                message =
                    "input/output error reading or writing the database (\(error.message ?? "disk I/O error"))"
            case 8:
                message =
                    "the database is read-only here (a read-only disk, or a file or folder this user cannot write)"
            default: message = "database error \(code): \(error.message ?? "unknown")"
            }
            return StoreError(
                code: code, message: message, path: path, sql: error.sql, cause: error.message)
        }
        return StoreError(code: 0, message: "\(error)", path: path, cause: String(describing: error))
    }
}

/// The bytes this user may still write on the file system that holds `path`'s folder.
func freeBytes(beside path: String) -> UInt64? {
    let folder = (path as NSString).deletingLastPathComponent
    var info = statvfs()
    guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return nil }
    return UInt64(info.f_bavail) * UInt64(info.f_frsize)
}
