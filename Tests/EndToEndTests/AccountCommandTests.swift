import Foundation
import Testing
import VSHAccounts
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

/// `vsh player password` and `vsh player role` through the built binary.
@Suite struct AccountCommandTests {
    func run(_ workspace: Workspace, _ arguments: [String], stdin: String? = nil) throws
        -> TestSupport.ProcessResult
    {
        try TestSupport.run(
            "vsh", arguments + ["--db", workspace.db, "--hunts", workspace.hunts],
            stdin: stdin.map { Data($0.utf8) })
    }

    @Test func aPasswordFromStandardInputIsStoredOnlyAsABcryptHash() async throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["player", "add", "Ann Lee"]).status == 0)
        let set = try run(workspace, ["player", "password", "ann lee"], stdin: "tumbling dice 777\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "password set for Ann Lee\n")
        #expect(!set.stdout.contains("tumbling") && !set.stderr.contains("tumbling"))

        let store = try SpatiaLiteStore(path: workspace.db)
        let hash = try #require(try await store.credentials(named: "Ann Lee")?.passwordHash)
        #expect(Passwords.verify("tumbling dice 777", hash: hash))
        #expect(!Passwords.verify("tumbling dice 778", hash: hash))
        // The password itself is nowhere in the database files.
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: workspace.db + suffix))) ?? Data()
            #expect(bytes.range(of: Data("tumbling dice".utf8)) == nil, "found in vsh.sqlite\(suffix)")
        }

        // Refused: too short, no input, an unknown player. Nothing changes.
        let short = try run(workspace, ["player", "password", "Ann Lee"], stdin: "short\n")
        #expect(short.status == 65)
        #expect(short.stderr == "vsh: a password needs at least 8 characters\n")
        let empty = try run(workspace, ["player", "password", "Ann Lee"], stdin: "")
        #expect(empty.status == 64)
        let nobody = try run(workspace, ["player", "password", "Bo"], stdin: "long enough\n")
        #expect(nobody.status == 65)
        #expect(nobody.stderr.contains("no player \"Bo\""))
        #expect(try await store.credentials(named: "Ann Lee")?.passwordHash == hash)
    }

    @Test func rolesAreGrantedAndTakenBack() async throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["player", "add", "Mo"]).status == 0)
        let grant = try run(workspace, ["player", "role", "Mo", "moderator"])
        #expect(grant.status == 0, "\(grant.stderr)")
        #expect(grant.stdout == "Mo is a moderator\n")
        #expect(try await SpatiaLiteStore(path: workspace.db).credentials(named: "Mo")?.role == .moderator)
        let organiser = try run(workspace, ["player", "role", "Mo", "organiser"])
        #expect(organiser.stdout == "Mo is an organiser\n", "\(organiser.stderr)")
        #expect(try await SpatiaLiteStore(path: workspace.db).credentials(named: "Mo")?.role == .organiser)
        #expect(try run(workspace, ["player", "role", "Mo", "player"]).status == 0)
        #expect(try await SpatiaLiteStore(path: workspace.db).credentials(named: "Mo")?.role == .player)
        let wrong = try run(workspace, ["player", "role", "Mo", "admin"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr == "vsh: a role is player, moderator or organiser, not \"admin\"\n")
    }
}
