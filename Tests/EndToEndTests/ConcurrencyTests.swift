import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Many players checking in against one database at once, each submission its own `vsh` process.
@Suite struct ConcurrencyTests {
    static let workers = 8
    static let checkInsPerWorker = 200

    /// Stop positions from Fixtures/landmarks.csv, walked in order (Strip and Downtown mixed, so
    /// some moves are teleports and get rejected: every verdict is exercised).
    static func landmarks() throws -> [String] {
        let text = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/landmarks.csv"),
            encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",")
            return "\(fields[2]),\(fields[3])"
        }
    }

    @Test func eightProcessesTimesTwoHundredCheckInsAreAllRecordedOnceWithExactTotals() throws {
        let workspace = try Workspace()
        let players = (1...Self.workers).map { "Player \($0)" }
        for player in players { try workspace.addPlayers(player) }
        let places = try Self.landmarks()
        let vsh = TestSupport.productsDirectory.appendingPathComponent("vsh").path
        let start = try #require(RFC3339.parse("2026-11-21T13:50:00Z"))
        // One shell script a worker: 200 separate `vsh checkin` processes, one after another; the last
        // submits the photo every other worker submits too.
        let processes = try players.enumerated().map { index, player -> Process in
            var script = "set -u\n"
            for n in 0..<Self.checkInsPerWorker {
                let common =
                    "\(vsh) checkin --player '\(player)' --now \(fixtureNow) --db \(workspace.db) --hunts \(workspace.hunts) --json"
                if n == Self.checkInsPerWorker - 1 {
                    script += "\(common) --photo \(workspace.fixturePath("sign-inside.jpg"))"
                } else {
                    let time = RFC3339.format(start.addingTimeInterval(Double(n) * 100 + Double(index)))
                    script +=
                        "\(common) --fix \(places[(n + index) % places.count]) --time \(time) --accuracy 8"
                }
                script += " >> out-\(index).jsonl 2>> err-\(index).txt; echo $? >> status-\(index).txt\n"
            }
            let file = workspace.root.appendingPathComponent("worker-\(index).sh")
            try Data(script.utf8).write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [file.path]
            process.currentDirectoryURL = workspace.root
            return process
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }

        var ids: Set<Int> = []
        var expectedPoints: [String: Int] = [:]
        var photoAccepted = 0
        for (index, player) in players.enumerated() {
            func read(_ name: String) throws -> String {
                try String(contentsOf: workspace.root.appendingPathComponent(name), encoding: .utf8)
            }
            let statuses = try read("status-\(index).txt").split(separator: "\n")
            #expect(statuses.count == Self.checkInsPerWorker)
            #expect(
                statuses.allSatisfy { ["0", "1", "2"].contains($0) },
                "\(player): exit statuses \(Set(statuses))")
            let errors = try read("err-\(index).txt")
            #expect(errors.isEmpty, "\(player): \(errors.prefix(500))")
            let answers = try read("out-\(index).jsonl").split(separator: "\n").map { try json(String($0)) }
            #expect(answers.count == Self.checkInsPerWorker)
            for answer in answers {
                #expect(answer["player"]?.string == player)
                if case .number(let id, _)? = answer["id"] { ids.insert(Int(id)) }
                var points =
                    answer["points"].flatMap { if case .number(let n, _) = $0 { Int(n) } else { nil } } ?? 0
                for award in answer["awards"]?.array ?? [] {
                    if case .number(let n, _)? = award["points"] { points += Int(n) }
                }
                expectedPoints[player, default: 0] += points
            }
            if answers.last?["verdict"]?.string == "accepted" { photoAccepted += 1 }
        }
        // The audit trail: every submission recorded exactly once, numbered without a gap.
        let total = Self.workers * Self.checkInsPerWorker
        #expect(ids == Set(1...total))
        let totals = try workspace.totals()
        for player in players {
            #expect(totals[player]?.checkins == Self.checkInsPerWorker, "\(player)")
            #expect(totals[player]?.points == expectedPoints[player], "\(player)")
        }
        #expect(photoAccepted == 1, "the shared photo was accepted \(photoAccepted) times")
        // Totals equal a rescore from the check-ins, and the file is sound.
        let doctor = try workspace.vsh(["doctor", "--json"], hunts: false)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(try json(doctor.stdout)["checkins"] == .int(total))
    }

    /// A writer that holds the database past the wait: exit 75 with one line, nothing recorded;
    /// within the wait, the check-in goes through.
    @Test func aLockHeldPastTheWaitIsExit75AndRecordsNothing() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        // Another program (Python's sqlite3) takes the write lock and keeps it for `hold` seconds.
        func holdLock(for hold: Double) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-c",
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); "
                    + "print('locked', flush=True); time.sleep(float(sys.argv[2])); c.execute('ROLLBACK')",
                workspace.db, "\(hold)",
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            _ = pipe.fileHandleForReading.readData(ofLength: 7)  // "locked\n": the lock is held
            return process
        }
        func checkIn(wait: String) throws -> TestSupport.ProcessResult {
            try TestSupport.run(
                "vsh",
                [
                    "checkin", "--player", "Ann", "--fix", "36.12056,-115.16139", "--time",
                    "2026-11-21T19:59:00Z", "--accuracy", "5", "--now", fixtureNow,
                    "--db", workspace.db, "--hunts", workspace.hunts,
                ],
                environment: ["VSH_BUSY_TIMEOUT": wait])
        }
        let holder = try holdLock(for: 4)
        let started = Date()
        let busy = try checkIn(wait: "1")
        let waited = Date().timeIntervalSince(started)
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(
            busy.stderr.split(separator: "\n").count == 1 && busy.stderr.contains("busy"), "\(busy.stderr)")
        // It waited the 1 s it was given (a lower bound: a busy machine only makes it longer), and
        // gave up while the lock was still held (the holder keeps it 4 s): no upper bound on the clock.
        #expect(waited >= 0.9, "gave up after \(waited) s")
        #expect(holder.isRunning, "the lock was released before vsh gave up")
        holder.waitUntilExit()
        #expect(try workspace.totals()["Ann"]?.checkins == 0)
        // A lock released within the wait: the check-in waits for it and is recorded.
        let shortHolder = try holdLock(for: 1)
        #expect(try checkIn(wait: "10").status == 0)
        shortHolder.waitUntilExit()
        #expect(try workspace.totals()["Ann"]?.checkins == 1)
    }
}
