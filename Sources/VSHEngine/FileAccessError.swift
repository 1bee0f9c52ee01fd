public import VSHCore

/// A file the engine was asked to read or write that it cannot.
public enum FileAccessError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// Missing, a folder, or not readable.
    case cannotOpen(path: String)
    /// Its folder is missing or not writable, or the disk is full.
    case cannotWrite(path: String)

    /// `path: problem`.
    public var description: String {
        switch self {
        case .cannotOpen(let path): return "\(path): cannot open the file"
        case .cannotWrite(let path): return "\(path): cannot write the file"
        }
    }

    /// An input or output file that cannot be used.
    public var errorKind: ErrorKind { .unavailableInput }
}
