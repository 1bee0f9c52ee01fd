public import Foundation

/// Times as people read them in the commands' text and on the venue's board page: on the clock of
/// the hunt they belong to (`2026-11-21 10:31 PST`), as the web app, the console and the results
/// CSV show them. A time
/// that belongs to no hunt (a player's first day, a badge) is on the league's clock when all its
/// hunts keep one zone, else in UTC. JSON output keeps RFC 3339 in UTC.
public final class HuntClock {
    private let zones: [String: TimeZone]
    private let league: TimeZone
    private var formatters: [String: DateFormatter] = [:]

    private static let utc = TimeZone(identifier: "UTC")!

    /// The clock of `hunts` (a hunt whose zone is not known reads in UTC).
    public init(hunts: [Hunt]) {
        var zones: [String: TimeZone] = [:]
        for hunt in hunts { zones[hunt.id] = TimeZone(identifier: hunt.timeZone) ?? Self.utc }
        self.zones = zones
        let distinct = Set(zones.values.map(\.identifier))
        league = distinct.count == 1 ? zones.values.first! : Self.utc
    }

    /// The clock of every hunt `store` publishes.
    public static func of(_ store: any HuntStore) async throws -> HuntClock {
        HuntClock(hunts: try await store.hunts().map(\.hunt))
    }

    /// The zone of hunt `id`, or the league's (nil, or a hunt not among them).
    public func zone(ofHunt id: String?) -> TimeZone { id.flatMap { zones[$0] } ?? league }

    /// `2026-11-21 10:31 PST`.
    public func minute(_ date: Date, hunt: String?) -> String {
        text(date, "yyyy-MM-dd HH:mm zzz", hunt)
    }

    /// `2026-11-21 10:31:05 PST`.
    public func second(_ date: Date, hunt: String?) -> String {
        text(date, "yyyy-MM-dd HH:mm:ss zzz", hunt)
    }

    /// `2026-11-21`.
    public func day(_ date: Date, hunt: String?) -> String {
        text(date, "yyyy-MM-dd", hunt)
    }

    /// `text` with each RFC 3339 time in UTC in it (a rule's words: "taken after the hunt closed
    /// at 2026-11-21T19:00:00Z") on the hunt's clock, as the web app shows them.
    public func words(_ text: String, hunt: String?) -> String {
        guard text.contains("Z") else { return text }
        let range = NSRange(text.startIndex..., in: text)
        var result = ""
        var last = text.startIndex
        for match in Self.utcTime.matches(in: text, range: range) {
            guard let found = Range(match.range, in: text), let date = RFC3339.parse(String(text[found]))
            else {
                continue
            }
            result += text[last..<found.lowerBound] + second(date, hunt: hunt)
            last = found.upperBound
        }
        return result + text[last...]
    }

    private static let utcTime = try! NSRegularExpression(
        pattern: "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z")

    private func text(_ date: Date, _ format: String, _ hunt: String?) -> String {
        let zone = zone(ofHunt: hunt)
        let key = format + " " + zone.identifier
        if let formatter = formatters[key] { return formatter.string(from: date) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        // UTC by its name ("GMT" is what the zone's abbreviation gives).
        formatter.dateFormat =
            zone.identifier == Self.utc.identifier
            ? format.replacingOccurrences(of: "zzz", with: "'UTC'") : format
        formatters[key] = formatter
        return formatter.string(from: date)
    }
}
