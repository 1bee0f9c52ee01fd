public import Foundation
import NIOCore
public import VSHCore

/// The leaderboard as a standalone page a venue can put on a screen (`vsh leaderboard --format
/// html`): large type, the top three highlighted, refreshing itself. The page is a file of the web
/// app (`Web/board.html`), filled as the share page is.
public enum LeaderboardPage {
    /// The web app's files are not installed beside the executable.
    public struct MissingTemplate: ClassifiedError, CustomStringConvertible, Sendable {
        /// An installation that lacks its files is an internal failure, not the user's input.
        public var errorKind: ErrorKind { .internalFailure }
        /// What is missing.
        public var description: String { "the web app's files (board.html) are not installed beside vsh" }
    }

    /// The page of `entries` under `title`, saying when it was made on `clock` (the hunt's, or the
    /// league's: `Updated 2026-11-21 11:30 PST`), refreshing every `refreshSeconds`.
    public static func html(
        _ entries: [LeaderboardEntry], title: String, generated: Date, clock: HuntClock, hunt: String? = nil,
        refreshSeconds: Int = 30
    ) throws -> String {
        guard let folder = WebApp.installedFolder(), let asset = WebApp.asset(folder + "/board.html") else {
            throw MissingTemplate()
        }
        let rows = entries.map { e -> [String: String] in
            [
                "medal": e.rank == 1 ? " gold" : e.rank == 2 ? " silver" : e.rank == 3 ? " bronze" : "",
                "rank": String(e.rank), "player": e.player, "points": String(e.points),
                "hunts": String(e.huntsCompleted), "stops": String(e.stopsVisited),
                "badges": String(e.badges),
            ]
        }
        return WebApp.fill(
            String(buffer: asset.bytes),
            [
                "title": title, "updated": clock.minute(generated, hunt: hunt),
                "refresh": String(refreshSeconds),
            ],
            sections: ["rows": rows, "empty": entries.isEmpty ? [[:]] : []])
    }
}
