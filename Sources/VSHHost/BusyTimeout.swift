public import Foundation

/// How long a store waits for its database before answering "busy" (exit 75, HTTP 503 with
/// Retry-After): another process's write transaction on SQLite; a free connection, a lock or an
/// unreachable server on PostgreSQL. 10 s, or `VSH_BUSY_TIMEOUT` (0 to 600 s).
public enum BusyTimeout {
    /// The wait, in seconds.
    public static let seconds: TimeInterval = {
        guard let text = ProcessInfo.processInfo.environment["VSH_BUSY_TIMEOUT"], let value = Double(text),
            (0...600).contains(value)
        else { return 10 }
        return value
    }()
}
