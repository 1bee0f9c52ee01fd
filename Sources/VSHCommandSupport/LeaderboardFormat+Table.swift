public import ArgumentParser
public import VSHCore
public import VSHEngine

extension LeaderboardFormat: ExpressibleByArgument {}

extension LeaderboardFormat {
    /// The terminal table: aligned columns by display width, the header in bold.
    public static func table(_ entries: [LeaderboardEntry]) -> String {
        guard !entries.isEmpty else { return "No scores yet.\n" }
        var table = TextTable(
            headers: ["RANK", "PLAYER", "POINTS", "HUNTS", "STOPS", "BADGES"], rightAligned: [0, 2, 3, 4, 5])
        for e in entries {
            table.append([
                "\(e.rank)", e.player, "\(e.points)", "\(e.huntsCompleted)", "\(e.stopsVisited)",
                "\(e.badges)",
            ])
        }
        var lines = table.render()
        lines[0] = TerminalStyle.bold(lines[0])
        return lines.joined(separator: "\n") + "\n"
    }

}
