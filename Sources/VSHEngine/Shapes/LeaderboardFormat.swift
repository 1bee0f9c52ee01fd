import Foundation
public import VSHCore

/// The output formats of a leaderboard (`vsh leaderboard --format`, the API's JSON rows).
public enum LeaderboardFormat: String, CaseIterable, Sendable {
    case table, json, csv, markdown, html

    /// `[{rank, player, player_id, points, hunts_completed, stops_visited, badges}]`.
    public static func json(_ entries: [LeaderboardEntry]) -> String {
        JSONValue.array(rows(entries)).compactText
    }

    /// The rows of `json`, one object an entry.
    public static func rows(_ entries: [LeaderboardEntry]) -> [JSONValue] {
        entries.map { e in
            .object([
                "rank": .int(e.rank), "player": .string(e.player),
                "player_id": .int(Int(e.playerID.rawValue)), "points": .int(e.points),
                "hunts_completed": .int(e.huntsCompleted), "stops_visited": .int(e.stopsVisited),
                "badges": .int(e.badges),
            ])
        }
    }

    /// RFC 4180: a header line, CRLF line ends, fields quoted when they hold a comma, quote or line break.
    /// A name a spreadsheet would take for a formula (starting with `=`, `+`, `-` or `@`: "-A1" is
    /// one) gets a leading apostrophe, as OWASP advises against CSV injection.
    public static func csv(_ entries: [LeaderboardEntry]) -> String {
        func field(_ text: String) -> String {
            var text = text
            if let first = text.unicodeScalars.first, "=+-@".unicodeScalars.contains(first) {
                text = "'" + text
            }
            return text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var out = "rank,player,points,hunts_completed,stops_visited,badges\r\n"
        for e in entries {
            out +=
                "\(e.rank),\(field(e.player)),\(e.points),\(e.huntsCompleted),\(e.stopsVisited),\(e.badges)\r\n"
        }
        return out
    }

    /// A Markdown table, `|` in names escaped.
    public static func markdown(_ entries: [LeaderboardEntry]) -> String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var out =
            "| rank | player | points | hunts completed | stops visited | badges |\n| ---: | --- | ---: | ---: | ---: | ---: |\n"
        for e in entries {
            out +=
                "| \(e.rank) | \(cell(e.player)) | \(e.points) | \(e.huntsCompleted) | \(e.stopsVisited) | \(e.badges) |\n"
        }
        return out
    }
}
