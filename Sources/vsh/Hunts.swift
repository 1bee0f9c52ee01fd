import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Hunts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hunts", abstract: "List the published hunts (vsh sync publishes the hunts folder).")

        @OptionGroup var store: StoreOptions
        @Flag(help: "One JSON array of hunts (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let hunts = try await store.openStore(sync: false, existing: true).hunts()
                if json {
                    Output.line(
                        JSONValue.array(hunts.map { HuntJSON.hunt($0, withStops: false) }).compactText)
                    return .success
                }
                if hunts.isEmpty {
                    Output.line(
                        "No hunts published. Add hunt files to \(store.huntsDirectory)/ and run vsh sync (see the README)."
                    )
                    return .success
                }
                var table = TextTable(
                    headers: ["ID", "NAME", "DIFFICULTY", "STOPS", "POINTS"], rightAligned: [3, 4])
                for stored in hunts {
                    let hunt = stored.hunt
                    table.append([
                        hunt.id, hunt.name, hunt.difficulty.rawValue, "\(hunt.stops.count)",
                        "\(hunt.totalPoints)",
                    ])
                }
                table.render().forEach(Output.line)
                return .success
            }
        }
    }
}
