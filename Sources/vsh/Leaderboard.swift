import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHServer
import VSHSpatiaLite

extension VSH {
    struct Leaderboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leaderboard",
            abstract: "Rank the players: points, hunts completed, stops visited, badges.",
            discussion: """
                Points are derived from accepted check-ins: a stop's points on the first visit, a hunt's bonus \
                when every stop is done, and badges. Equal points share a rank (1, 2, 2, 4) and are listed by \
                who reached that score first. --since/--until count what was earned in that window.
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "Only points earned in this hunt.") var hunt: String?
        @Option(help: ArgumentHelp("Only points earned at or after this time (RFC 3339).", valueName: "time"))
        var since: String?
        @Option(help: ArgumentHelp("Only points earned before this time (RFC 3339).", valueName: "time"))
        var until: String?
        @Option(help: "At most this many lines.") var limit: Int?
        @Option(help: "table, json, csv, markdown or html.") var format: LeaderboardFormat = .table

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit takes a number from 1") }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let from = try since.map { try Clock.time($0, option: "--since") }
                let to = try until.map { try Clock.time($0, option: "--until") }
                let entries = try await db.leaderboard(
                    LeaderboardQuery(huntID: hunt, since: from, until: to, limit: limit))
                switch format {
                case .table: Output.text(LeaderboardFormat.table(entries))
                case .json: Output.line(LeaderboardFormat.json(entries))
                case .csv: Output.text(LeaderboardFormat.csv(entries))
                case .markdown: Output.text(LeaderboardFormat.markdown(entries))
                case .html:
                    var title = "Las Vegas scavenger hunt leaderboard"
                    if let hunt, let name = try await db.hunt(id: hunt)?.hunt.name {
                        title = "\(name) leaderboard"
                    }
                    Output.text(try LeaderboardPage.html(entries, title: title, generated: Date()))
                }
                return .success
            }
        }
    }

    struct Rescore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rescore",
            abstract:
                "Recompute every player's points, completions and badges from the check-ins (also done after any hunt or badge change)."
        )
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(existing: true)
                try await db.rescoreEveryone()
                Output.line("\(db.location): scores recomputed")
                return .success
            }
        }
    }
}
