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
        @Option(
            help: ArgumentHelp(
                "With --format html: the event's name as the page's title, as vsh serve --title takes it (default: the hunt's name, or \"vsh hunts\").",
                valueName: "name"))
        var title: String?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit takes a number from 1") }
            if let title {
                if format != .html { throw ValidationError("--title goes with --format html") }
                if let problem = WebConfiguration.titleProblem(title) {
                    throw ValidationError("--title \(problem)")
                }
            }
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
                    var heading = "\(WebConfiguration().title) leaderboard"
                    if let hunt, let name = try await db.hunt(id: hunt)?.hunt.name {
                        heading = "\(name) leaderboard"
                    }
                    if let title { heading = title.trimmingCharacters(in: .whitespaces) }
                    // "Updated" on the hunt's clock (the league's without --hunt), as the screen's
                    // audience reads it.
                    let clock = try await HuntClock.of(db)
                    Output.text(
                        try LeaderboardPage.html(
                            entries, title: heading, generated: Date(), clock: clock, hunt: hunt))
                }
                return .success
            }
        }
    }

    struct Rescore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rescore",
            abstract:
                "Recompute every player's and team's points, completions and badges from the check-ins (also done after any hunt or badge change)."
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
