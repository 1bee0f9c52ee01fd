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
                let db = try await store.openStore(sync: false, existing: true)
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
                // On the hunt's clock, as players see the opening and closing times.
                let clock = HuntClock(hunts: [hunt])
                if let start = hunt.startsAt { Output.line("starts \(clock.minute(start, hunt: hunt.id))") }
                if let end = hunt.endsAt { Output.line("ends   \(clock.minute(end, hunt: hunt.id))") }
                Output.line("")
                // Where each stop is: the middle of its outline's box, to about a metre.
                var table = TextTable(
                    headers: ["#", "STOP", "NAME", "POINTS", "AREA m²", "AROUND (LAT, LON)"],
                    rightAligned: [0, 3, 4])
                for (index, stop) in hunt.stops.enumerated() {
                    let area = Int((stored.stopAreas[stop.id] ?? 0).rounded())
                    let middle = stop.geofence.bounds.center
                    table.append([
                        "\(index + 1)", stop.id, stop.name, "\(stop.points)", "\(area)",
                        String(format: "%.5f, %.5f", middle.latitude, middle.longitude),
                    ])
                }
                table.render().forEach(Output.line)
                let described = hunt.stops.enumerated().filter { !$0.element.description.isEmpty }
                if !described.isEmpty { Output.line("") }
                for (index, stop) in described {
                    Output.line("\(index + 1). \(stop.name): \(stop.description)")
                }
                return .success
            }
        }
    }
}
