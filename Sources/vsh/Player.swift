import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Player: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register players.", subcommands: [Add.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Register a player.",
                discussion: "Names: 1 to 40 letters, digits, spaces and . _ - ' ; unique ignoring case.")

            @OptionGroup var store: StoreOptions
            @Argument(help: "The player's name.") var name: String
            @Option(help: "An email address (optional).") var email: String?
            @Option(help: ArgumentHelp("Use this time as now (RFC 3339).", valueName: "time")) var now:
                String?

            func run() async throws {
                try await CommandRunner.run(tool: "vsh") {
                    let added = try await store.openStore().addPlayer(
                        name: name, email: email, at: try Clock.now(now))
                    Output.line("added player \(added.name)")
                    return .success
                }
            }
        }
    }

    struct Players: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the players with their points and check-ins.")

        @OptionGroup var store: StoreOptions
        @Flag(help: "One JSON array: [{name, player_id, points, checkins, accepted, created_at}].") var json =
            false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let players = try await store.openStore().players()
                if json {
                    Output.line(
                        JSONValue.array(
                            players.map { p in
                                .object([
                                    "name": .string(p.name), "player_id": .int(Int(p.id.rawValue)),
                                    "points": .int(p.points), "checkins": .int(p.checkIns),
                                    "accepted": .int(p.acceptedCheckIns),
                                    "created_at": .string(RFC3339.format(p.createdAt)),
                                ])
                            }
                        ).compactText)
                    return .success
                }
                if players.isEmpty {
                    Output.line("No players yet. Add one: vsh player add NAME")
                    return .success
                }
                var table = TextTable(
                    headers: ["PLAYER", "POINTS", "CHECK-INS", "ACCEPTED"], rightAligned: [1, 2, 3])
                for p in players {
                    table.append([p.name, "\(p.points)", "\(p.checkIns)", "\(p.acceptedCheckIns)"])
                }
                table.render().forEach(Output.line)
                return .success
            }
        }
    }
}
