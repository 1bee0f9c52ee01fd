/// What kind of failure an error is, as the libraries see it. The edges translate it, each in
/// one table of its own: the command line to an exit status (`ExitStatus(kind)` in
/// VSHCommandSupport), the server to an HTTP status (`Problem.from` in VSHServer).
public enum ErrorKind: Sendable, CaseIterable {
    /// The request itself is incomplete or contradictory: a required reason missing, an option
    /// out of its range, a target that may not be written.
    case invalidRequest
    /// The input data was wrong: a corrupt photo, malformed GPX or GeoJSON, an invalid polygon,
    /// an unknown player or hunt.
    case invalidData
    /// An input is missing or cannot be opened: a file, a folder, an unreachable database.
    case unavailableInput
    /// A bug or an unexpected failure.
    case internalFailure
    /// The system could not read or write: a full disk, a read-only file system, an I/O error.
    case storageFailure
    /// The database stayed busy longer than the wait allows; trying again may succeed.
    case busy
}

/// An error that says which kind of failure it is.
public protocol ClassifiedError: Error {
    /// The kind, which the command line and the server translate.
    var errorKind: ErrorKind { get }
}

extension HuntFileErrors: ClassifiedError {
    /// A hunt file is bad input data.
    public var errorKind: ErrorKind { .invalidData }
}
