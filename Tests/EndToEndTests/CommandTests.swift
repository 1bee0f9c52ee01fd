import Foundation
import Testing
import VSHCore
import VSHTestSupport

@Suite struct CommandTests {
    /// Both tools say which release they are, in one line, and exit 0.
    @Test func versionIsOneLine() throws {
        for tool in ["vsh", "vsh-master"] {
            let result = try TestSupport.run(tool, ["--version"])
            #expect(result.status == 0)
            #expect(
                result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil,
                "\(result.stdout)")
        }
    }

    @Test func huntsAndHuntPrintTheDocumentedJSON() throws {
        let workspace = try Workspace(asShipped: true)
        #expect(try workspace.vsh(["sync"]).status == 0)
        let list = try json(try workspace.vsh(["hunts", "--json"]).stdout)
        #expect(list.array.map { $0["id"]?.string } == ["downtown-fremont", "strip-classics"])
        guard case .object(let strip) = list.array[1] else {
            Issue.record("not an object")
            return
        }
        #expect(
            strip.keys == [
                "id", "name", "description", "difficulty", "bonus_points", "ordered", "timezone", "starts_at",
                "ends_at",
                "max_accuracy_m", "max_photo_age_s", "tolerance_m", "image", "max_speed_kmh",
                "min_duration_s",
                "total_points", "stops",
            ])
        #expect(strip["stops"] == .int(10))

        let hunt = try json(try workspace.vsh(["hunt", "downtown-fremont", "--json"]).stdout)
        let stops = hunt["stops"]?.array ?? []
        #expect(stops.count == 7)
        #expect(stops.first?["id"]?.string == "fremont-street-experience")
        guard case .number(let area, _)? = stops.first?["area_m2"] else {
            Issue.record("no area")
            return
        }
        #expect(area > 10_000 && area < 20_000)  // 460 m x 32 m

        // In words: where each stop is and what to look for there (a player could not tell before).
        let text = try workspace.vsh(["hunt", "downtown-fremont"]).stdout
        #expect(text.contains("AROUND (LAT, LON)"))
        #expect(text.contains("The Mob Museum                 60     9000  36.17282, -115.14125"), "\(text)")
        #expect(text.contains("\n2. The Mob Museum: The 1933 federal courthouse"), "\(text)")

        let unknown = try workspace.vsh(["hunt", "nope"])
        #expect(unknown.status == 65)
        #expect(unknown.stderr == "vsh: no hunt \"nope\" (hunts: downtown-fremont, strip-classics)\n")
    }

    /// A mistyped --db used to make a new empty database and answer "No scores yet." with exit 0:
    /// commands that only read a league, or change what is in one, refuse a missing file (66);
    /// those that make state still make it.
    @Test func readingCommandsRefuseAMissingDatabase() throws {
        let workspace = try Workspace()
        let typo = workspace.root.appendingPathComponent("vhs.sqlite").path
        for command in [
            ["leaderboard"], ["players"], ["profile", "Ann"], ["doctor"], ["review", "list"],
            ["player", "role", "Ann", "moderator"], ["hunts"], ["hunt", "strip-classics"],
        ] {
            let result = try TestSupport.run(
                "vsh", command + ["--db", typo, "--hunts", workspace.hunts], currentDirectory: workspace.root)
            #expect(result.status == 66, "\(command): \(result.stderr)")
            #expect(
                result.stderr
                    == "vsh: \(typo): no such database (vsh sync or vsh player add makes one; "
                    + "or name it with --db or VSH_DB)\n", "\(command)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(command) made \(typo)")
        }
        let made = try TestSupport.run(
            "vsh", ["sync", "--db", typo, "--hunts", workspace.hunts], currentDirectory: workspace.root)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try TestSupport.run("vsh", ["leaderboard", "--db", typo]).stdout == "No scores yet.\n")
    }

    @Test func theDatabaseIsARealSpatiaLiteFileThatGDALReads() throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["sync"]).stdout.contains("loaded 2 hunts with 17 stops"))
        #expect(try workspace.vsh(["sync"]).stdout.contains("hunts are up to date"))
        let ogrinfo = Process()
        ogrinfo.executableURL = URL(fileURLWithPath: "/usr/bin/ogrinfo")
        ogrinfo.arguments = ["-ro", "-so", workspace.db, "stops"]
        let pipe = Pipe()
        ogrinfo.standardOutput = pipe
        ogrinfo.standardError = Pipe()
        try ogrinfo.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ogrinfo.waitUntilExit()
        #expect(ogrinfo.terminationStatus == 0)
        #expect(output.contains("Layer name: stops"))
        #expect(output.contains("Geometry: Multi Polygon"))
        #expect(output.contains("Feature Count: 17"))
        #expect(output.contains("WGS 84"))
    }

    @Test func missingInputsAndBadDatabasesHaveTheirExitCodes() throws {
        let workspace = try Workspace()
        let noHunts = try TestSupport.run(
            "vsh",
            ["sync", "--db", workspace.db, "--hunts", workspace.root.appendingPathComponent("absent").path])
        #expect(noHunts.status == 66)
        #expect(noHunts.stderr.contains("hunts folder not found"))

        let jpeg = workspace.root.appendingPathComponent("photo.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x41, count: 4000)).write(to: jpeg)
        let notDB = try TestSupport.run("vsh", ["hunts", "--db", jpeg.path])
        #expect(notDB.status == 65)
        #expect(notDB.stderr.hasPrefix("vsh: \(jpeg.path): not a vsh database"))

        let noFolder = try TestSupport.run(
            "vsh", ["sync", "--db", "/nonexistent-folder/vsh.sqlite", "--hunts", workspace.hunts])
        #expect(noFolder.status == 66)
        #expect(!noFolder.stderr.contains("Fatal") && noFolder.stderr.split(separator: "\n").count == 1)
    }

    @Test func environmentVariablesNameTheDatabaseAndHunts() throws {
        let workspace = try Workspace()
        let environment = ["VSH_DB": workspace.db, "VSH_HUNTS": workspace.hunts]
        #expect(try TestSupport.run("vsh", ["sync"], environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: workspace.db))
        let result = try TestSupport.run("vsh", ["hunts"], environment: environment)
        #expect(result.status == 0)
        #expect(result.stdout.contains("strip-classics"))
    }

    /// Commands that only read (or change only accounts) show the league as it is: an edited hunt
    /// file is published by `vsh sync` (or a command that records), never by a read, which used to
    /// rescore the league (a player gained points without a check-in).
    @Test func readingCommandsNeverChangeTheHuntsOrTheScores() throws {
        let workspace = try Workspace()
        try workspace.league()
        let board = try workspace.vsh(["leaderboard", "--format", "json"]).stdout
        let hunt = try workspace.vsh(["hunt", "strip-classics", "--json"]).stdout
        #expect(board.contains(#""points":50"#), "\(board)")
        let path = workspace.hunts + "/strip-classics.geojson"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = text.replacingOccurrences(
            of: "never through traffic.\",\n        \"points\": 50,",
            with: "never through traffic.\",\n        \"points\": 85,")
        #expect(edited != text)
        try workspace.write("strip-classics.geojson", edited)
        for command in [
            ["hunts"], ["hunt", "strip-classics"], ["leaderboard"], ["profile", "Ann"], ["players"],
            ["doctor"],
            ["review", "list"], ["player", "role", "Dee", "moderator"],
        ] {
            #expect(try workspace.vsh(command).status == 0, "\(command)")
        }
        #expect(try workspace.vsh(["leaderboard", "--format", "json"]).stdout == board)
        #expect(try workspace.vsh(["hunt", "strip-classics", "--json"]).stdout == hunt)
        // Publishing is a command of its own.
        #expect(try workspace.vsh(["sync"]).status == 0)
        #expect(try workspace.vsh(["leaderboard", "--format", "json"]).stdout != board)
        #expect(try workspace.vsh(["hunt", "strip-classics", "--json"]).stdout.contains(#""points":85"#))
    }

    @Test func helpIsThereForEveryCommand() throws {
        for arguments in [
            ["--help"], ["locate", "--help"], ["hunts", "--help"], ["hunt", "--help"], ["sync", "--help"],
        ] {
            let result = try TestSupport.run("vsh", arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE"))
        }
        let master = try TestSupport.run("vsh-master", ["validate", "--help"])
        #expect(master.status == 0 && master.stdout.contains("self-intersections"))
    }
}
