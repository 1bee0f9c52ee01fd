public import VSHCore

/// The process exit codes of `vsh` and `vsh-master` (docs/design.md; sysexits.h
/// numbers for the errors so that shell scripts can tell them apart).
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success; for `checkin`, accepted.
    case success = 0
    /// The check-in was rejected.
    case rejected = 1
    /// The check-in waits for a moderator.
    case pendingReview = 2
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input data was wrong: a corrupt photo, malformed GPX or GeoJSON,
    /// an invalid polygon, an unknown player or hunt (EX_DATAERR).
    case dataError = 65
    /// An input file is missing or unreadable (EX_NOINPUT).
    case noInput = 66
    /// A bug or an unexpected failure (EX_SOFTWARE).
    case internalError = 70
    /// Reading or writing failed in the system: a full disk, a read-only file system, an I/O
    /// error (EX_IOERR).
    case ioError = 74
    /// The database stayed busy longer than the wait allows; try again (EX_TEMPFAIL).
    case busy = 75

    /// The command line's one table from a library error's kind to its exit status.
    public init(_ kind: ErrorKind) {
        switch kind {
        case .invalidRequest: self = .usage
        case .invalidData: self = .dataError
        case .unavailableInput: self = .noInput
        case .internalFailure: self = .internalError
        case .storageFailure: self = .ioError
        case .busy: self = .busy
        }
    }

    /// 0 accepted, 1 rejected, 2 pending review.
    public init(_ verdict: Verdict) {
        switch verdict {
        case .accepted: self = .success
        case .rejected: self = .rejected
        case .pending: self = .pendingReview
        }
    }
}
