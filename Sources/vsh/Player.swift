import ArgumentParser
import Foundation
import VSHAccounts
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Player: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "player",
            abstract: "Register players and manage their accounts.",
            subcommands: [Add.self, Password.self, RoleCommand.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
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
            commandName: "players",
            abstract: "List the players with their points and check-ins.")

        @OptionGroup var store: StoreOptions
        @Flag(help: "One JSON array: [{name, player_id, points, checkins, accepted, created_at}].") var json =
            false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                // By name as people sort names: "Visitor 2" before "Visitor 10", case aside.
                let players = try await store.openStore(sync: false, existing: true).players().sorted {
                    $0.name.compare($1.name, options: [.caseInsensitive, .numeric]) == .orderedAscending
                }
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

extension VSH.Player {
    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password",
            abstract: "Give a player a password for signing in to the service (read from standard input).",
            discussion: """
                The password is read from standard input (without echo on a terminal), never from the \
                command line, where other users could see it: printf '%s\\n' "$PW" | vsh player password Ann. \
                8 characters at least, 72 bytes at most. It is stored only as a bcrypt hash, and the \
                player's sessions end.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The player's name.") var name: String

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let player = try await db.requirePlayer(named: name)
                guard let password = SecretInput.readLine(prompt: "Password for \(player.name): ") else {
                    throw InputError("no password on standard input", status: .usage)
                }
                let hash = try Passwords.hash(password)
                try await db.setPasswordHash(hash, player: player.id)
                Output.line("password set for \(player.name)")
                return .success
            }
        }
    }

    struct RoleCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "role",
            abstract:
                "Make a player a moderator (the review queue), an organiser (hunts, drafts and publishing, and the review queue), or a player again."
        )

        @OptionGroup var store: StoreOptions
        @Argument(help: "The player's name.") var name: String
        @Argument(help: "player, moderator or organiser.") var role: String

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                guard let chosen = VSHCore.Role(rawValue: role) else {
                    throw InputError(
                        "a role is player, moderator or organiser, not \"\(role)\"", status: .usage)
                }
                let db = try await store.openStore(sync: false, existing: true)
                let player = try await db.requirePlayer(named: name)
                try await db.setRole(chosen, player: player.id)
                Output.line("\(player.name) is \(chosen == .organiser ? "an" : "a") \(chosen.rawValue)")
                return .success
            }
        }
    }
}
