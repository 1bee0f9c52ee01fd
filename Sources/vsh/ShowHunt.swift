import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct ShowHunt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hunt", abstract: "Show one hunt and its stops.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The hunt id (see `vsh hunts`).") var id: String
        @Flag(help: "One JSON object (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore()
                guard let stored = try await db.hunt(id: id) else {
                    throw LeagueError.unknownHunt(id: id, known: try await db.hunts().map(\.hunt.id))
                }
                if json {
                    Output.line(HuntJSON.hunt(stored, withStops: true).compactText)
                    return .success
                }
                let hunt = stored.hunt
                Output.line("\(hunt.name) (\(hunt.id))")
                if !hunt.description.isEmpty { Output.line(hunt.description) }
                var facts = [
                    "difficulty \(hunt.difficulty.rawValue)", "\(hunt.stops.count) stops",
                    "completion bonus \(hunt.bonusPoints)", "\(hunt.totalPoints) points in all",
                ]
                if hunt.ordered { facts.append("stops in order") }
                Output.line(facts.joined(separator: " · "))
                if let start = hunt.startsAt { Output.line("starts \(RFC3339.format(start))") }
                if let end = hunt.endsAt { Output.line("ends   \(RFC3339.format(end))") }
                Output.line("")
                var table = TextTable(
                    headers: ["#", "STOP", "NAME", "POINTS", "AREA m²"], rightAligned: [0, 3, 4])
                for (index, stop) in hunt.stops.enumerated() {
                    let area = Int((stored.stopAreas[stop.id] ?? 0).rounded())
                    table.append(["\(index + 1)", stop.id, stop.name, "\(stop.points)", "\(area)"])
                }
                table.render().forEach(Output.line)
                return .success
            }
        }
    }
}
