import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHStore

extension VSH {
    struct Profile: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A player's totals, progress in each hunt, badges and latest check-ins.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The player's name.") var name: String
        @Option(help: "How many recent check-ins to show.") var recent = 10
        @Flag(help: "One JSON object (shape in the README).") var json = false

        func run() throws {
            try CommandRunner.run(tool: "vsh") {
                let profile = try store.openStore().profile(player: name, recent: max(0, recent))
                if json {
                    Output.line(Self.json(profile).compactText)
                    return .success
                }
                let hunts = profile.huntsCompleted == 1 ? "1 hunt" : "\(profile.huntsCompleted) hunts"
                Output.line(TerminalStyle.bold(profile.name) + " · \(profile.points) points · \(profile.stopsVisited) stops · \(hunts) completed · playing since \(Self.day(profile.createdAt))")
                Output.line("")
                Output.line(TerminalStyle.bold("Hunts"))
                let width = profile.hunts.map { DisplayWidth.of($0.name) }.max() ?? 0
                for hunt in profile.hunts {
                    var line = "  " + DisplayWidth.pad(hunt.name, to: width) + "  " + Self.bar(hunt.visited, of: hunt.total) + "  \(hunt.visited)/\(hunt.total)"
                    if let done = hunt.completedAt { line += "  complete \(Self.day(done))" }
                    Output.line(line)
                }
                Output.line("")
                Output.line(TerminalStyle.bold("Badges"))
                if profile.badges.isEmpty { Output.line("  none yet") }
                for badge in profile.badges {
                    Output.line("  \(Self.day(badge.earnedAt))  \(badge.name)" + (badge.points > 0 ? " (+\(badge.points))" : "") + TerminalStyle.dim("  \(badge.description)"))
                }
                Output.line("")
                Output.line(TerminalStyle.bold("Recent check-ins"))
                if profile.recent.isEmpty { Output.line("  none yet") }
                for c in profile.recent {
                    var line = "  #\(c.id)  \(RFC3339.format(c.receivedAt))  " + c.state.padding(toLength: 8, withPad: " ", startingAt: 0)
                    line += "  " + (c.stopName ?? "no stop") + (c.huntID.map { " (\($0))" } ?? "")
                    if c.points > 0 { line += "  +\(c.points)" }
                    Output.line(line)
                }
                return .success
            }
        }

        /// `██████░░`: eight cells, filled in proportion.
        static func bar(_ done: Int, of total: Int, cells: Int = 8) -> String {
            let filled = total == 0 ? 0 : min(cells, Int((Double(done) / Double(total) * Double(cells)).rounded()))
            return String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
        }

        static func day(_ date: Date) -> String { String(RFC3339.format(date).prefix(10)) }

        static func json(_ p: PlayerProfile) -> JSONValue {
            .object([
                "name": .string(p.name), "created_at": .string(RFC3339.format(p.createdAt)), "points": .int(p.points),
                "stops_visited": .int(p.stopsVisited), "hunts_completed": .int(p.huntsCompleted),
                "hunts": .array(p.hunts.map { h in
                    .object([
                        "hunt": .string(h.huntID), "name": .string(h.name), "visited": .int(h.visited), "total": .int(h.total),
                        "completed_at": .optional(h.completedAt.map(RFC3339.format)),
                    ])
                }),
                "badges": .array(p.badges.map { b in
                    .object([
                        "badge": .string(b.id), "name": .string(b.name), "points": .int(b.points),
                        "earned_at": .string(RFC3339.format(b.earnedAt)), "checkin": .int(Int(b.checkInID)),
                    ])
                }),
                "recent": .array(p.recent.map { c in
                    .object([
                        "id": .int(Int(c.id)), "received_at": .string(RFC3339.format(c.receivedAt)), "hunt": .optional(c.huntID),
                        "stop": .optional(c.stopName), "state": .string(c.state), "points": .int(c.points),
                    ])
                }),
            ])
        }
    }
}
