import Foundation
import Testing
import VSHCore
import VSHGeodesy
import VSHTestSupport

@Suite struct LocateTests {
    @Test func everyShippedLandmarkIsInsideItsStopAndAPointNearbyIsNot() throws {
        let workspace = try Workspace()
        let landmarks = try Landmark.all()
        #expect(landmarks.count == 17)
        for landmark in landmarks {
            let here = try workspace.vsh([
                "locate", "\(landmark.latitude)", "\(landmark.longitude)", "--json",
            ])
            #expect(here.status == 0, "\(here.stderr)")
            let inside = try json(here.stdout)["inside"]?.array.compactMap { $0["stop"]?.string } ?? []
            #expect(
                inside.contains(landmark.stop),
                "\(landmark.stop) not found at its own coordinates: \(here.stdout)")

            // 400 m north: outside the stop, and the answer names the nearest stop with a distance.
            let away = Geodesic.destination(
                from: Coordinate(unchecked: landmark.latitude, landmark.longitude), azimuth: 0,
                distanceMeters: 400)
            let there = try workspace.vsh(["locate", "\(away.latitude),\(away.longitude)", "--json"])
            let result = try json(there.stdout)
            #expect(
                !(result["inside"]?.array.contains { $0["stop"]?.string == landmark.stop } ?? true),
                "\(landmark.stop) still covers 400 m away")
            if result["inside"]?.array.isEmpty == true {
                guard case .number(let distance, _)? = result["nearest"]?["distance_m"] else {
                    Issue.record("no nearest stop for \(landmark.stop)")
                    continue
                }
                #expect(distance > 0 && distance < 400)
            }
        }
    }

    @Test func textOutputNamesTheStopOrTheNearestOne() throws {
        let workspace = try Workspace()
        let sign = try workspace.vsh(["locate", "36.082014", "-115.172734"])
        #expect(sign.stdout == "inside Welcome to Fabulous Las Vegas Sign (strip-classics/welcome-sign)\n")
        let nowhere = try workspace.vsh(["locate", "36.1160", "-115.1760"])
        #expect(
            nowhere.stdout.hasPrefix(
                "no stop covers this point; nearest: Fountains of Bellagio (strip-classics/bellagio-fountains), "
            ))
    }

    /// A lookup reads: once the league exists and its hunts are synced, it changes not a byte of
    /// the file (GRDB's WAL set-up used to commit a table made and dropped at every open, which
    /// bumped the file's change counter) and leaves no -wal or -shm file behind.
    @Test func aLookupWritesNothing() throws {
        let workspace = try Workspace()
        let made = try workspace.vsh(["sync"])
        #expect(made.status == 0, "\(made.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.db))
        #expect(before.count > 4096)
        for arguments in [
            ["locate", "36.082014", "-115.172734"], ["locate", "36.1160", "-115.1760", "--json"],
        ] {
            let lookup = try workspace.vsh(arguments)
            #expect(lookup.status == 0, "\(lookup.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.db)) == before, "\(arguments)")
            for suffix in ["-wal", "-shm"] {
                #expect(
                    !FileManager.default.fileExists(atPath: workspace.db + suffix), "\(arguments): \(suffix)")
            }
        }
    }

    @Test func batchLocateStreamsACSVAndAgreesWithSingleLookups() throws {
        let workspace = try Workspace()
        let landmarks = try Landmark.all()
        var csv = "lat,lon\r\n# a comment\r\n\r\n"
        for landmark in landmarks { csv += "\(landmark.latitude),\(landmark.longitude)\r\n" }
        csv += "36.0,-115.0"  // no stop there; no newline at the end
        let file = workspace.root.appendingPathComponent("fixes.csv")
        try Data(csv.utf8).write(to: file)
        let result = try workspace.vsh(["locate", "--fixes", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "index,hunt,stop")
        // Line numbers: header 1, comment 2, blank 3, landmarks from 4.
        let expected = landmarks.enumerated().map { "\($0.offset + 4),\($0.element.hunt),\($0.element.stop)" }
        #expect(Array(lines.dropFirst()) == expected)
    }

    @Test func batchLocateNamesTheBadLineWithoutEchoingPositions() throws {
        let workspace = try Workspace()
        let file = workspace.root.appendingPathComponent("fixes.csv")
        try Data("36.1,-115.1\n36.2,-115.2\n36.3;-115.3\n".utf8).write(to: file)
        let bad = try workspace.vsh(["locate", "--fixes", file.path])
        #expect(bad.status == 65)
        #expect(bad.stderr == "vsh: \(file.path):3: expected \"lat,lon\" in decimal degrees\n")
        try Data("36.1,-115.1\n95,-115.2\n".utf8).write(to: file)
        let range = try workspace.vsh(["locate", "--fixes", file.path])
        #expect(range.status == 65)
        #expect(range.stderr == "vsh: \(file.path):2: latitude or longitude out of range\n")
        let missing = try workspace.vsh([
            "locate", "--fixes", workspace.root.appendingPathComponent("none.csv").path,
        ])
        #expect(missing.status == 66)
    }

    @Test func batchLocateHandlesAQuarterMillionFixes() throws {
        let workspace = try Workspace()
        let file = workspace.root.appendingPathComponent("many.csv")
        var text = ""
        text.reserveCapacity(6_000_000)
        for i in 0..<250_000 {
            // Alternate the Sphere's centre and a point in the desert.
            text += i % 2 == 0 ? "36.12056,-115.16139\n" : "36.0,-115.0\n"
        }
        try Data(text.utf8).write(to: file)
        let result = try workspace.vsh(["locate", "--fixes", file.path])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 125_001)
        #expect(lines.last == "249999,strip-classics,sphere")
    }

    @Test func positionsOutOfRangeOrMissingAreUsageErrors() throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["locate", "36.1"]).status == 64)
        #expect(try workspace.vsh(["locate", "95", "-115"]).status == 64)
        #expect(try workspace.vsh(["locate", "abc", "def"]).status == 64)
        #expect(try workspace.vsh(["locate", "36.1", "-115.1", "--fixes", "x.csv"]).status == 64)
    }
}
