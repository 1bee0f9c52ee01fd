import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Profile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "profile",
            abstract: "A player's totals, progress in each hunt, badges and latest check-ins.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The player's name.") var name: String
        @Option(help: "How many recent check-ins to show.") var recent = 10
        @Flag(help: "One JSON object (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let id = try await db.requirePlayer(named: name).id
                let profile = try await db.profile(player: id, recent: max(0, recent)).adjusted(
                    by: try await db.adjustments(of: .player(id)))
                if json {
                    Output.line(ProfileJSON.profile(profile).compactText)
                    return .success
                }
                let hunts = profile.huntsCompleted == 1 ? "1 hunt" : "\(profile.huntsCompleted) hunts"
                // Days and times on the clock of the hunt they belong to, else the league's.
                let clock = try await HuntClock.of(db)
                Output.line(
                    TerminalStyle.bold(profile.name)
                        + " · \(profile.points) points · \(profile.stopsVisited) stops · \(hunts) completed · playing since \(clock.day(profile.createdAt, hunt: nil))"
                )
                Output.line("")
                Output.line(TerminalStyle.bold("Hunts"))
                let width = profile.hunts.map { DisplayWidth.of($0.name) }.max() ?? 0
                for hunt in profile.hunts {
                    var line =
                        "  " + DisplayWidth.pad(hunt.name, to: width) + "  "
                        + Self.bar(hunt.visited, of: hunt.total) + "  \(hunt.visited)/\(hunt.total)"
                    if let done = hunt.completedAt {
                        line += "  complete \(clock.day(done, hunt: hunt.huntID))"
                    }
                    Output.line(line)
                }
                Output.line("")
                Output.line(TerminalStyle.bold("Badges"))
                if profile.badges.isEmpty { Output.line("  none yet") }
                for badge in profile.badges {
                    Output.line(
                        "  \(clock.day(badge.earnedAt, hunt: nil))  \(badge.name)"
                            + (badge.points > 0 ? " (+\(badge.points))" : "")
                            + TerminalStyle.dim("  \(badge.description)"))
                }
                Output.line("")
                Output.line(TerminalStyle.bold("Recent check-ins"))
                if profile.recent.isEmpty { Output.line("  none yet") }
                for c in profile.recent {
                    var line =
                        "  #\(c.id)  \(clock.second(c.receivedAt, hunt: c.huntID))  "
                        + c.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    line += "  " + (c.stopName ?? "no stop") + (c.huntID.map { " (\($0))" } ?? "")
                    if c.points > 0 { line += "  +\(c.points)" }
                    Output.line(line)
                }
                return .success
            }
        }

        /// `██████░░`: eight cells, filled in proportion.
        static func bar(_ done: Int, of total: Int, cells: Int = 8) -> String {
            let filled =
                total == 0 ? 0 : min(cells, Int((Double(done) / Double(total) * Double(cells)).rounded()))
            return String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
        }

    }
}
