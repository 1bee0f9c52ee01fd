import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// A league on media that cannot be written, or a disk that fills up: what only reads works,
/// what writes fails with exit 74 in one line and changes nothing. The media are real: a tmpfs
/// mounted for the test (read-only, or small and filled), which needs root, as CI runs.
@Suite(.serialized) struct MediaTests {
    /// A tmpfs of `megabytes` at a new folder, unmounted by `unmount`.
    static func mount(megabytes: Int) throws -> URL {
        let point = try TestSupport.temporaryDirectory("vsh-media")
        let result = try TestSupport.run(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", point.path])
        guard result.status == 0 else {
            throw FixtureError("cannot mount a tmpfs (these tests need root): \(result.stderr)")
        }
        return point
    }

    static func remountReadOnly(_ point: URL) throws {
        let result = try TestSupport.run("/bin/mount", ["-o", "remount,ro", point.path])
        guard result.status == 0 else { throw FixtureError("cannot remount read-only: \(result.stderr)") }
    }

    static func unmount(_ point: URL) {
        _ = try? TestSupport.run("/bin/umount", [point.path])
    }

    /// A league with one player and one check-in, copied onto `point`.
    static func league(on point: URL) throws -> Workspace {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        #expect(try workspace.visit("Ann", "welcome-sign", at: "2026-11-21T18:00:00Z").status == 0)
        for name in ["vsh.sqlite", "hunts"] {
            try FileManager.default.copyItem(
                at: workspace.root.appendingPathComponent(name), to: point.appendingPathComponent(name))
        }
        return workspace
    }

    static func vsh(_ arguments: [String], in point: URL) throws -> TestSupport.ProcessResult {
        try TestSupport.run("vsh", arguments, currentDirectory: point)
    }

    @Test func aLeagueOnReadOnlyMediaCanBeReadAndRefusesWritesWithExit74() throws {
        let point = try Self.mount(megabytes: 32)
        defer { Self.unmount(point) }
        _ = try Self.league(on: point)
        try Self.remountReadOnly(point)
        let board = try Self.vsh(["leaderboard"], in: point)
        #expect(board.status == 0, "\(board.stderr)")
        #expect(board.stdout.contains("Ann") && board.stdout.contains("60"))
        #expect(try Self.vsh(["profile", "Ann"], in: point).status == 0)
        #expect(try Self.vsh(["hunts"], in: point).stdout.contains("strip-classics"))
        let doctor = try Self.vsh(["doctor"], in: point)
        #expect(
            doctor.status == 0 && doctor.stdout.contains("integrity ok"), "\(doctor.stdout)\(doctor.stderr)")
        let add = try Self.vsh(["player", "add", "Bo"], in: point)
        #expect(add.status == 74)
        #expect(
            add.stderr
                == "vsh: ./vsh.sqlite: the database is read-only here (a read-only disk, or a file or folder this "
                + "user cannot write)\n")
        let checkin = try Self.vsh(
            [
                "checkin", "--player", "Ann", "--fix", "36.1126,-115.1767", "--time", "2026-11-21T19:00:00Z",
                "--accuracy", "5", "--now", "2026-11-21T19:01:00Z",
            ], in: point)
        #expect(checkin.status == 74 && checkin.stdout.isEmpty, "\(checkin.stdout)\(checkin.stderr)")
    }

    @Test func aFullDiskIsExit74AndRecordsNothing() throws {
        let point = try Self.mount(megabytes: 4)
        defer { Self.unmount(point) }
        _ = try Self.league(on: point)
        // Fill the disk: a file as large as the space left.
        let filler = point.appendingPathComponent("filler").path
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        let chunk = [UInt8](repeating: 0, count: 4096)
        while write(fd, chunk, chunk.count) > 0 {}
        close(fd)
        var failures = 0
        for minute in 0..<20 {
            let result = try Self.vsh(
                [
                    "checkin", "--player", "Ann", "--fix", "36.1126,-115.1767", "--time",
                    "2026-11-21T19:\(String(format: "%02d", minute)):00Z", "--accuracy", "5", "--now",
                    "2026-11-21T19:30:00Z",
                ], in: point)
            if result.status == 74 {
                failures += 1
                #expect(
                    result.stderr.hasSuffix(
                        "the disk is full: nothing was written (free some space and try again)\n"),
                    "\(result.stderr)")
            } else {
                #expect([0, 1, 2].contains(result.status), "\(result.stderr)")
            }
        }
        #expect(failures > 0)
        unlink(filler)
        let doctor = try Self.vsh(["doctor", "--json"], in: point)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        let players = try json(try Self.vsh(["players", "--json"], in: point).stdout)
        // Every check-in that was answered is there; none that failed.
        #expect(players.array.first?["checkins"] == .int(1 + 20 - failures))
    }

    @Test func aFullDiskUnderTheOutputIsExit74() throws {
        let workspace = try Workspace()
        let full = open("/dev/full", O_WRONLY)
        defer { close(full) }
        let errors = try Spawn.pipe()
        let pid = try Spawn.start(
            TestSupport.productsDirectory.appendingPathComponent("vsh").path,
            ["sync", "--db", workspace.db, "--hunts", workspace.hunts], environment: [:], directory: nil,
            stdin: 0, stdout: full, stderr: errors.write)
        close(errors.write)
        let stderr = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true).readDataToEndOfFile()
        #expect(Spawn.wait(pid) == 74)
        #expect(
            String(decoding: stderr, as: UTF8.self)
                == "vsh: cannot write the output: No space left on device\n")
    }
}
