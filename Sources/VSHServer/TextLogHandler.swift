import Foundation
public import Logging
import Synchronization

/// `vsh serve`'s log lines in text (the default `--log-format`): the lines swift-log's
/// `StreamLogHandler` writes, byte for byte (`2026-11-28T09:30:59+0000 info vsh: hb.request.id=…
/// [VSHServer] 127.0.0.1 GET /v1/leaderboard 200 0.1 ms`), made for less.
///
/// Why: a cached leaderboard read spent a tenth of its CPU on its access-log line. Most of that
/// was the time stamp: glibc's `localtime` looks at /etc/localtime (a `stat`) on every call. The
/// stamp is now made once a second (`LogClock`), a request's metadata is not formatted when it is
/// set but when a line is written, and the line goes to standard error in one `write`.
public struct TextLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Metadata every entry of this logger carries (Hummingbird sets a request's id here).
    public var metadata: Logger.Metadata = [:]
    /// Entries below this level are dropped.
    public var logLevel: Logger.Level = .info
    /// Metadata from the task or thread (none unless the process installs a provider).
    public var metadataProvider: Logger.MetadataProvider?
    /// Where the lines go: standard error, or an event-loop turn's lines (`EarlyTurn`).
    let output: LogOutput

    /// A handler for the logger `label`.
    public init(label: String) { self.init(label: label, output: .standardError) }

    init(label: String, output: LogOutput) {
        self.label = label
        self.metadataProvider = LoggingSystem.metadataProvider
        self.output = output
    }

    /// One metadata value of this logger.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one entry as one line.
    public func log(event: LogEvent) {
        output.write(line(for: event, stamp: LogClock.local.text(at: time(nil))))
    }

    /// The line for `event`, stamped `stamp`: `StreamLogHandler.log(event:)`'s.
    func line(for event: LogEvent, stamp: String) -> String {
        var all = metadata
        let provided = metadataProvider?.get() ?? [:]
        if !provided.isEmpty { all.merge(provided) { $1 } }
        if let explicit = event.metadata, !explicit.isEmpty { all.merge(explicit) { $1 } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var text = stamp
        text.reserveCapacity(stamp.utf8.count + label.utf8.count + 160)
        text += " "
        text += event.level.rawValue
        if !label.isEmpty { text += " " }
        text += label
        text += ":"
        if !all.isEmpty {
            for (key, value) in all.sorted(by: { $0.key < $1.key }) {
                text += " "
                text += key
                text += "="
                text += "\(value)"
            }
        }
        text += " ["
        text += event.source
        text += "] "
        text += "\(event.message)"
        text += "\n"
        return text
    }
}

/// A log line's time stamp, made once a second and kept for every line of that second.
final class LogClock: Sendable {
    /// Local time with the zone's offset, as `StreamLogHandler` writes it: `2026-11-28T09:30:59+0000`.
    static let local = LogClock { seconds in
        var moment = seconds
        var parts = tm()
        guard localtime_r(&moment, &parts) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, 64, "%Y-%m-%dT%H:%M:%S%z", &parts)
            return String(
                decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: count), as: UTF8.self)
        }
    }

    private let format: @Sendable (time_t) -> String
    /// The last second asked for and its text.
    private let last = Mutex<(second: time_t, text: String)?>(nil)

    init(format: @escaping @Sendable (time_t) -> String) { self.format = format }

    /// The stamp of the second `seconds` (since 1970).
    func text(at seconds: time_t) -> String {
        if let kept = last.withLock({ $0 }), kept.second == seconds { return kept.text }
        let text = format(seconds)
        last.withLock { $0 = (seconds, text) }
        return text
    }
}

/// Lines written to a file descriptor whole, one `write` each, or kept for the end of an
/// event-loop turn (`EarlyTurn`), whose lines go in one `write`. A line of up to `PIPE_BUF` bytes
/// (every access line) is written without a lock: one such `write` is never interleaved with
/// another, to a pipe (POSIX) or a file (Linux holds the file's position for the call). Longer
/// lines are written one writer at a time.
struct LogOutput: Sendable {
    static let standardError = LogOutput(descriptor: STDERR_FILENO)

    let descriptor: Int32
    /// The turn that keeps the lines, if any (which holds this output through its logger).
    unowned var turn: EarlyTurn?
    private static let lock = Mutex(())

    /// Writes `line`, or keeps it in the turn.
    func write(_ line: String) {
        if let turn {
            turn.keep(line)
            return
        }
        var line = line
        line.withUTF8 { write($0) }
    }

    /// Writes `bytes`; what cannot be written (a closed pipe, a full disk) is dropped, as a log line
    /// must never stop a request.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        if left <= PIPE_BUF {
            let wrote = Glibc.write(descriptor, next, left)
            if wrote == left || (wrote < 0 && errno != EINTR) { return }
            if wrote > 0 {
                next += wrote
                left -= wrote
            }
        }
        Self.lock.withLock { _ in
            while left > 0 {
                let wrote = Glibc.write(descriptor, next, left)
                if wrote > 0 {
                    next += wrote
                    left -= wrote
                } else if wrote < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
