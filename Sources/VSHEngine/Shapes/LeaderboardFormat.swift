public import Foundation
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

    /// A standalone page a venue can put on a screen: large type, the top three
    /// highlighted, refreshing itself every `refreshSeconds`.
    public static func html(
        _ entries: [LeaderboardEntry], title: String, generated: Date, refreshSeconds: Int = 30
    ) -> String {
        let escape = Markup.escaped
        var rows = ""
        for e in entries {
            let medal = e.rank == 1 ? " gold" : e.rank == 2 ? " silver" : e.rank == 3 ? " bronze" : ""
            rows +=
                "<tr class=\"r\(medal)\"><td class=\"rank\">\(e.rank)</td><td class=\"player\">\(escape(e.player))</td>"
            rows +=
                "<td class=\"n\">\(e.points)</td><td class=\"n\">\(e.huntsCompleted)</td><td class=\"n\">\(e.stopsVisited)</td><td class=\"n\">\(e.badges)</td></tr>\n"
        }
        if entries.isEmpty {
            rows = "<tr><td colspan=\"6\" class=\"empty\">No scores yet: go find the first stop!</td></tr>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="\(refreshSeconds)">
            <title>\(escape(title))</title>
            <style>
              body { margin: 0; background: #14102a; color: #f5f0ff; font-family: "Helvetica Neue", Arial, sans-serif; }
              header { padding: 3vh 4vw 1vh; }
              h1 { margin: 0; font-size: 5vh; letter-spacing: .04em; color: #ffd166; text-shadow: 0 0 12px #ff4fa3; }
              p.when { margin: .5vh 0 0; color: #b9addb; font-size: 2vh; }
              table { width: 92vw; margin: 2vh 4vw; border-collapse: collapse; font-size: 3.2vh; }
              th { text-align: left; color: #b9addb; font-weight: normal; font-size: 2.2vh; border-bottom: 2px solid #3b2f6b; padding: 1vh; }
              td { padding: 1.2vh 1vh; border-bottom: 1px solid #2a2150; }
              td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
              td.rank { width: 8vw; font-weight: bold; color: #b9addb; }
              tr.gold td.rank { color: #ffd166; } tr.silver td.rank { color: #dfe6f0; } tr.bronze td.rank { color: #e0a070; }
              tr.gold td.player { font-weight: bold; }
              td.empty { text-align: center; color: #b9addb; padding: 6vh; }
            </style>
            </head>
            <body>
            <header><h1>\(escape(title))</h1><p class="when">Updated \(escape(RFC3339.format(generated)))</p></header>
            <table>
            <thead><tr><th>Rank</th><th>Player</th><th class="n">Points</th><th class="n">Hunts</th><th class="n">Stops</th><th class="n">Badges</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            </table>
            </body>
            </html>

            """
    }
}
