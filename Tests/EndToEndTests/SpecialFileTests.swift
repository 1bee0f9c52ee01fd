import Foundation
import Testing
import VSHTestSupport

/// Inputs that used to hang or crash a command (robustness round 2): a FIFO where a file is
/// expected (opened blocking, it waited forever for a writer) and an accuracy too large for an
/// integer (formatting it trapped). Each is now one line and its exit code.
@Suite struct SpecialFileTests {
    @Test func aFIFOIsRefusedNotWaitedOn() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let photo = workspace.root.appendingPathComponent("pipe.jpg").path
        let track = workspace.root.appendingPathComponent("pipe.gpx").path
        #expect(mkfifo(photo, 0o600) == 0 && mkfifo(track, 0o600) == 0)
        // `vsh exif` and `vsh gpx` take no database; `vsh checkin` is run with the workspace's.
        let direct = [(["exif", photo], photo), (["gpx", track], track)]
        for (arguments, file) in direct {
            let result = try TestSupport.run("vsh", arguments, currentDirectory: workspace.root)
            #expect(result.status == 66, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(file))
        }
        let checkIn = try workspace.vsh(["checkin", "--player", "Ann", "--photo", photo, "--now", fixtureNow])
        #expect(checkIn.status == 66, "\(checkIn.status) \(checkIn.stderr)")
        #expect(checkIn.stderr.split(separator: "\n").count == 1 && checkIn.stderr.contains(photo))
        // A FIFO named like a photo inside a batch folder: refused by name, the real photo recorded.
        let batch = workspace.root.appendingPathComponent("batch")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
        #expect(mkfifo(batch.appendingPathComponent("a-pipe.jpg").path, 0o600) == 0)
        try FileManager.default.copyItem(
            atPath: workspace.fixturePath("sign-inside.jpg"),
            toPath: batch.appendingPathComponent("sign.jpg").path)
        let mixed = try workspace.vsh([
            "checkin", "--player", "Ann", "--photo", batch.path, "--now", fixtureNow,
        ])
        #expect(mixed.stderr.contains("a-pipe.jpg"), "\(mixed.stderr)")
        #expect(try workspace.totals()["Ann"]?.checkins == 1)
    }

    @Test func anAccuracyBeyondAnyIntegerIsRefusedOrShownNeverACrash() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        for value in ["1e19", "-1", "nan", "inf"] {
            let result = try workspace.vsh([
                "checkin", "--player", "Ann", "--fix", "36.0815,-115.1727", "--time", "2026-11-21T19:59:00Z",
                "--accuracy=\(value)", "--now", fixtureNow,
            ])
            #expect(result.status == 64, "--accuracy \(value): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--accuracy takes 0 to 1000000 metres"))
        }
        #expect(try workspace.totals()["Ann"]?.checkins ?? 0 == 0)
    }
}
