import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// `vsh` killed with SIGKILL in the middle of a batch of check-ins or of a hunt sync, again and
/// again: the database always passes `vsh doctor` (PRAGMA integrity_check, foreign keys, every
/// check-in's photo archived, totals equal to a rescore) and holds whole batches only.
@Suite(.serialized) struct CrashTests {
    /// Starts `vsh`, kills it after `delay` seconds; true when it was still running (a real crash).
    static func runAndKill(_ arguments: [String], after delay: Double, in folder: URL) throws -> Bool {
        let process = Process()
        process.executableURL = TestSupport.productsDirectory.appendingPathComponent("vsh")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(useconds_t(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
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
        process.arguments = ["python3", TestSupport.packageRoot.appendingPathComponent("Benchmarks/make_world.py").path] + arguments
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
        let arguments = ["checkin", "--player", "Ann", "--photo", photos.path, "--now", fixtureNow, "--db", workspace.db, "--hunts", workspace.hunts]
        // A whole run first, to time it; then kills at random moments within that time.
        let started = Date()
        #expect(try TestSupport.run("vsh", arguments, currentDirectory: workspace.root).status <= 2)
        let duration = Date().timeIntervalSince(started)
        var random = SplitMix64(seed: 0xC4A5_11)
        var landed = 0
        var previous = Self.count(try Self.doctor(workspace.db)["checkins"])
        #expect(previous == 3_000)
        for _ in 0..<8 {
            if try Self.runAndKill(arguments, after: duration * Double.random(in: 0.05...0.95, using: &random), in: workspace.root) { landed += 1 }
            let health = try Self.doctor(workspace.db)
            let checkIns = Self.count(health["checkins"])
            #expect(checkIns % 500 == 0, "\(checkIns) check-ins: a batch of 500 was cut")
            #expect(checkIns >= previous)
            previous = checkIns
        }
        print("crash test: \(landed) of 8 kills hit a running batch check-in; \(previous) check-ins survived, all whole")
        #expect(landed >= 5, "only \(landed) of 8 kills hit a running check-in")
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
        var landed = 0
        var stops = 4_000
        for _ in 0..<8 {
            // Always a real change: the other folder than the one the database holds.
            let folder = stops == 4_000 ? small : large
            if try Self.runAndKill(["sync", "--db", db, "--hunts", folder.path], after: durations[folder]! * Double.random(in: 0.05...0.95, using: &random), in: workspace.root) {
                landed += 1
            }
            stops = Self.count(try Self.doctor(db)["stops"])
            #expect(stops == 4_000 || stops == 2_500, "\(stops) stops after a killed sync")
        }
        print("crash test: \(landed) of 8 kills hit a running sync; every database held 4,000 or 2,500 stops")
        #expect(landed >= 5, "only \(landed) of 8 kills hit a running sync")
        // A sync after the crashes finishes the job.
        #expect(try TestSupport.run("vsh", ["sync", "--db", db, "--hunts", small.path]).status == 0)
        #expect(Self.count(try Self.doctor(db)["stops"]) == 2_500)
    }
}
