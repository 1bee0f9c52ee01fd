public import Foundation

/// A hunt's results as CSV (RFC 4180: CRLF lines, fields with a comma, quote or line break quoted,
/// quotes doubled) for the organiser's spreadsheet: one row a player, by rank. A text field that a
/// spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first) is
/// written with a `'` before it, so that a player named `=HYPERLINK(...)` stays a name.
public enum ResultsCSV {
    /// The header row's fields.
    public static let columns = [
        "rank", "player", "points", "stops_visited", "stops_total", "completed", "finished_at",
        "finished_local", "adjustments",
    ]

    /// The CSV of `entries` (a hunt's board) for `hunt`; finish times in UTC and on the hunt's clock;
    /// `adjustments` are the organisers' (already among the points), summed a player.
    public static func text(_ entries: [LeaderboardEntry], hunt: Hunt, adjustments: [Adjustment] = [])
        -> String
    {
        var adjusted: [PlayerID: Int] = [:]
        for a in adjustments where a.huntID == hunt.id {
            if case .player(let id) = a.subject { adjusted[id, default: 0] += a.points }
        }
        let local = localFormatter(hunt)
        var lines = [columns.map(field).joined(separator: ",")]
        for entry in entries {
            let completed = entry.huntsCompleted > 0
            let row = [
                String(entry.rank), entry.player, String(entry.points), String(entry.stopsVisited),
                String(hunt.stops.count), completed ? "yes" : "no",
                completed ? RFC3339.format(entry.reachedAt) : "",
                completed ? local.string(from: entry.reachedAt) : "",
                String(adjusted[entry.playerID, default: 0]),
            ]
            lines.append(row.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The header row's fields of a team board.
    public static let teamColumns = [
        "rank", "team", "members", "points", "stops_visited", "stops_total", "completed", "finished_at",
        "finished_local", "adjustments",
    ]

    /// The CSV of a hunt's team standings: members' names joined by "; ".
    public static func text(_ standings: [TeamStanding], hunt: Hunt) -> String {
        let local = localFormatter(hunt)
        var lines = [teamColumns.map(field).joined(separator: ",")]
        for row in standings {
            let finished = row.completed ? row.reachedAt : nil
            let fields = [
                String(row.rank), row.team.name, row.members.joined(separator: "; "), String(row.points),
                String(row.stopsVisited), String(hunt.stops.count), row.completed ? "yes" : "no",
                finished.map(RFC3339.format) ?? "", finished.map(local.string(from:)) ?? "",
                String(row.adjustments),
            ]
            lines.append(fields.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `2026-11-21 10:31:00` on the hunt's clock: the `_local` columns (a spreadsheet reads it as a
    /// date and time).
    public static func localFormatter(_ hunt: Hunt) -> DateFormatter {
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone(identifier: hunt.timeZone) ?? TimeZone(identifier: "UTC")!
        local.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return local
    }

    /// One field, defused and quoted as needed.
    public static func field(_ value: String) -> String {
        var text = value
        if let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first),
            Double(text) == nil
        {
            text = "'" + text
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
