import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// `vsh` killed with SIGKILL in the middle of a batch of check-ins or of a hunt sync, again and
/// again: the database always passes `vsh doctor` (PRAGMA integrity_check, foreign keys, every
/// check-in's photo archived, totals equal to a rescore) and holds whole batches only.
@Suite(.serialized) struct CrashTests {
    /// Starts `vsh` and kills it after `delay` seconds if it is still running.
    /// - Returns: whether it was killed (a real crash), and how long it ran.
    static func runAndKill(_ arguments: [String], after delay: Double, in folder: URL) throws -> (
        killed: Bool, seconds: Double
    ) {
        let process = Process()
        process.executableURL = TestSupport.productsDirectory.appendingPathComponent("vsh")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let started = Date()
        try process.run()
        while process.isRunning && Date().timeIntervalSince(started) < delay { usleep(2_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationReason == .uncaughtSignal, Date().timeIntervalSince(started))
    }

    /// Kills at random moments within the expected run time, until `kills` have hit a running
    /// process. After each run, `after` checks the database and gives the next expected run time
    /// (from the run that just ended when it was not killed: the machine's load changes).
    static func killRepeatedly(
        _ kills: Int, random: inout SplitMix64, duration initial: Double, in folder: URL,
        arguments: () -> [String],
        after: (_ run: (killed: Bool, seconds: Double)) throws -> Double
    ) throws -> Int {
        var duration = initial
        var landed = 0
        var attempts = 0
        while landed < kills && attempts < kills * 4 {
            attempts += 1
            let run = try runAndKill(
                arguments(), after: duration * Double.random(in: 0.05...0.95, using: &random), in: folder)
            if run.killed { landed += 1 }
            duration = try after(run)
        }
        return landed
    }

    static func doctor(_ db: String) throws -> JSONValue {
        let result = try TestSupport.run("vsh", ["doctor", "--json", "--db", db])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return try json(result.stdout)
    }

    static func count(_ value: JSONValue?) -> Int {
        if case .number(let n, _)? = value { return Int(n) }
        return -1
    }

    static func world(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", TestSupport.packageRoot.appendingPathComponent("Benchmarks/make_world.py").path]
            + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "make_world.py \(arguments) failed")
    }

    @Test func killedBatchCheckInsLeaveWholeBatchesOnly() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let photos = workspace.root.appendingPathComponent("photos")
        try Self.world(["photos", photos.path, "3000", "--no-big"])
        let arguments = [
            "checkin", "--player", "Ann", "--photo", photos.path, "--now", fixtureNow, "--db", workspace.db,
            "--hunts", workspace.hunts,
        ]
        // A whole run first, to time it; then kills at random moments within that time.
        let started = Date()
        #expect(try TestSupport.run("vsh", arguments, currentDirectory: workspace.root).status <= 2)
        var duration = Date().timeIntervalSince(started)
        var random = SplitMix64(seed: 0xC4A5_11)
        var previous = Self.count(try Self.doctor(workspace.db)["checkins"])
        #expect(previous == 3_000)
        let landed = try Self.killRepeatedly(
            8, random: &random, duration: duration, in: workspace.root, arguments: { arguments },
            after: { run in
                if !run.killed { duration = run.seconds }
                let checkIns = Self.count(try Self.doctor(workspace.db)["checkins"])
                #expect(checkIns % 500 == 0, "\(checkIns) check-ins: a batch of 500 was cut")
                #expect(checkIns >= previous)
                previous = checkIns
                return duration
            })
        print(
            "crash test: \(landed) of 8 kills hit a running batch check-in; \(previous) check-ins survived, all whole"
        )
        #expect(landed == 8, "only \(landed) of 32 attempts hit a running check-in")
        // The database is still in service: a whole run adds all 3,000.
        let whole = try TestSupport.run("vsh", arguments, currentDirectory: workspace.root)
        #expect(whole.status <= 2, "\(whole.stderr.prefix(300))")
        #expect(Self.count(try Self.doctor(workspace.db)["checkins"]) == previous + 3_000)
    }

    @Test func killedSyncsLeaveTheOldHuntsOrTheNew() throws {
        let workspace = try Workspace(copyHunts: false)
        let large = workspace.root.appendingPathComponent("large")
        let small = workspace.root.appendingPathComponent("small")
        try Self.world(["stops", large.path, "4000"])
        try Self.world(["stops", small.path, "2500"])
        var random = SplitMix64(seed: 0x5_11C)
        let db = workspace.db
        // Whole syncs first, to time them; then kills at random moments within those times.
        // (The first creates the database, which takes longer: it is not timed.)
        var durations: [URL: Double] = [:]
        for (index, folder) in [large, small, large].enumerated() {
            let started = Date()
            #expect(try TestSupport.run("vsh", ["sync", "--db", db, "--hunts", folder.path]).status == 0)
            if index > 0 { durations[folder] = Date().timeIntervalSince(started) }
        }
        var stops = 4_000
        // Always a real change: the other folder than the one the database holds.
        var folder = small
        let landed = try Self.killRepeatedly(
            8, random: &random, duration: durations[small]!, in: workspace.root,
            arguments: { ["sync", "--db", db, "--hunts", folder.path] },
            after: { run in
                if !run.killed { durations[folder] = run.seconds }
                stops = Self.count(try Self.doctor(db)["stops"])
                #expect(stops == 4_000 || stops == 2_500, "\(stops) stops after a killed sync")
                folder = stops == 4_000 ? small : large
                return durations[folder]!
            })
        print("crash test: \(landed) of 8 kills hit a running sync; every database held 4,000 or 2,500 stops")
        #expect(landed == 8, "only \(landed) of 32 attempts hit a running sync")
        // A sync after the crashes finishes the job.
        #expect(try TestSupport.run("vsh", ["sync", "--db", db, "--hunts", small.path]).status == 0)
        #expect(Self.count(try Self.doctor(db)["stops"]) == 2_500)
    }
}
