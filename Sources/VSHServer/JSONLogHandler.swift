import Foundation
public import Logging
import VSHCore

/// `vsh serve --log-format json`: one JSON object a line on standard error, for log shippers
/// (journald, Loki, Elasticsearch): `time` (RFC 3339, UTC, milliseconds), `level`, `label`,
/// `message` and the entry's metadata as strings. A request's line carries `client`, `method`,
/// `route` (the template), `status` and `duration_ms`, the same fields as the text line, and no
/// more: never a body, a header, a token, an e-mail address, a position or a query.
public struct JSONLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Metadata every entry of this logger carries.
    public var metadata: Logger.Metadata = [:]
    /// Entries below this level are dropped.
    public var logLevel: Logger.Level = .info

    /// Where the lines go: standard error, or an event-loop turn's lines (`EarlyTurn`).
    let output: LogOutput

    /// A handler for the logger `label`.
    public init(label: String) { self.init(label: label, output: .standardError) }

    init(label: String, output: LogOutput) {
        self.label = label
        self.output = output
    }

    /// One metadata value of this logger.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one entry as one line.
    public func log(event: LogEvent) {
        var object: JSONObject = [
            "time": .string(Self.time(Date())), "level": .string(event.level.rawValue),
            "label": .string(label), "message": .string("\(event.message)"),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() where object[key] == nil {
            object[key] = .string("\(merged[key]!)")
        }
        output.write(JSONValue.object(object).compactText + "\n")
    }

    /// A second's time in UTC without the Z: `2026-11-26T18:50:00`.
    static let clock = LogClock { String(RFC3339.format(Date(timeIntervalSince1970: Double($0))).dropLast()) }

    /// RFC 3339 in UTC with milliseconds; the seconds made once a second (`LogClock`).
    static func time(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let millis = min(999, Int(((seconds - whole) * 1000).rounded(.down)))
        let millisText = String(millis)
        return clock.text(at: time_t(whole)) + "." + String(repeating: "0", count: 3 - millisText.count)
            + millisText + "Z"
    }
}
