import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 18: SpatiaLite, PROJ and libheif (with curl, GnuTLS, Kerberos and video codecs behind
/// them: 46 of the 74 shared libraries `vsh --help` loaded) are loaded when a command first
/// needs them, not at start-up. The dynamic loader's own log (LD_DEBUG) says what it loaded.
@Suite struct LazyLibraryTests {
    /// The libraries the loader opened while `vsh arguments` ran.
    static func loaded(_ arguments: [String], in workspace: Workspace? = nil) throws -> (Int32, Set<String>) {
        let result =
            try workspace?.vsh(arguments, environment: ["LD_DEBUG": "libs"])
            ?? TestSupport.run("vsh", arguments, environment: ["LD_DEBUG": "libs"])
        var names = Set<String>()
        for line in result.stderr.split(separator: "\n") where line.contains("calling init: ") {
            if let path = line.split(separator: " ").last {
                names.insert(String(path.split(separator: "/").last ?? path))
            }
        }
        return (result.status, names)
    }

    static func has(_ names: Set<String>, _ prefix: String) -> Bool {
        names.contains { $0.hasPrefix(prefix) }
    }

    @Test func commandsLoadSpatiaLitePROJAndLibheifOnlyWhenTheyNeedThem() throws {
        let (helpStatus, help) = try Self.loaded(["--help"])
        #expect(helpStatus == 0)
        #expect(Self.has(help, "libsqlite3"), "\(help.sorted())")  // the log works
        for library in ["libspatialite", "libproj", "libheif", "libgeos", "libcurl"] {
            #expect(!Self.has(help, library), "vsh --help loaded \(library)")
        }
        // Reading a JPEG's EXIF needs none of them.
        let jpeg = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path
        let (exifStatus, exif) = try Self.loaded(["exif", jpeg])
        #expect(exifStatus == 0)
        #expect(!Self.has(exif, "libspatialite") && !Self.has(exif, "libheif"), "\(exif.sorted())")
        // A league is a SpatiaLite file: making one loads SpatiaLite (and PROJ with it) ...
        let workspace = try Workspace()
        let (addStatus, add) = try Self.loaded(["player", "add", "Ann"], in: workspace)
        #expect(addStatus == 0)
        #expect(Self.has(add, "libspatialite") && Self.has(add, "libproj"), "\(add.sorted())")
        // ... but a check-in and a lookup decide stops on their stored binary geofences (SpatiaLite
        // only near an edge), and read and write plain tables: they load none of the three.
        let (checkinStatus, checkin) = try Self.loaded(
            ["checkin", "--player", "Ann", "--photo", jpeg, "--now", fixtureNow], in: workspace)
        #expect(checkinStatus == 0)
        #expect(try workspace.vsh(["leaderboard"]).stdout.contains("Ann"))
        // A second check-in compares its fix with the first (travel_speed): in one town, without PROJ.
        let fixTime = RFC3339.format(RFC3339.parse(fixtureNow)!.addingTimeInterval(-60))
        let (secondStatus, second) = try Self.loaded(
            [
                "checkin", "--player", "Ann", "--fix", "36.0820,-115.1727", "--accuracy", "5", "--time",
                fixTime,
                "--now", fixtureNow,
            ], in: workspace)
        #expect(secondStatus == 0 || secondStatus == 1)
        let (locateStatus, locate) = try Self.loaded(["locate", "36.082014", "-115.172734"], in: workspace)
        #expect(locateStatus == 0)
        // A position no stop covers is answered with the nearest one, measured without PROJ.
        let (nearestStatus, nearest) = try Self.loaded(["locate", "36.1160", "-115.1760"], in: workspace)
        #expect(nearestStatus == 0)
        for (what, libraries) in [
            ("checkin", checkin), ("checkin --fix", second), ("locate", locate),
            ("locate (nearest)", nearest),
        ] {
            for library in ["libspatialite", "libproj", "libheif"] {
                #expect(!Self.has(libraries, library), "vsh \(what) loaded \(library)")
            }
        }
        // A changed hunt is written into SpatiaLite geometry: the sync loads it.
        let hunt = workspace.root.appendingPathComponent("hunts/strip-classics.geojson")
        let text = try String(contentsOf: hunt, encoding: .utf8)
        try text.replacingOccurrences(of: "\"points\": 50", with: "\"points\": 55").write(
            to: hunt, atomically: true, encoding: .utf8)
        let (syncStatus, sync) = try Self.loaded(["sync"], in: workspace)
        #expect(syncStatus == 0)
        #expect(Self.has(sync, "libspatialite"), "\(sync.sorted())")
    }
}

/// Issue 39: libxml2 (with ICU, zlib and liblzma behind it) is loaded when a command first reads
/// XML that the GPX byte scanner declines, not at every command's start.
@Suite struct LazyXMLTests {
    @Test func libxml2IsLoadedOnlyForTheXMLTheByteScannerDeclines() throws {
        let (helpStatus, help) = try LazyLibraryTests.loaded(["--help"])
        #expect(helpStatus == 0)
        #expect(LazyLibraryTests.has(help, "libsqlite3"), "\(help.sorted())")  // the log works
        for library in ["libxml2", "libicuuc", "liblzma"] {
            #expect(!LazyLibraryTests.has(help, library), "vsh --help loaded \(library)")
        }
        // A plain GPX walk is read by the byte scanner: no libxml2.
        let walk = TestSupport.packageRoot.appendingPathComponent("Fixtures/walks/strip-south.gpx").path
        let (plainStatus, plain) = try LazyLibraryTests.loaded(["gpx", walk])
        #expect(plainStatus == 0)
        #expect(!LazyLibraryTests.has(plain, "libxml2"), "\(plain.sorted())")
        // A name with an entity reference is left to libxml2, which is loaded then and reads it.
        let folder = try TestSupport.temporaryDirectory("vsh-lazy-xml")
        let file = folder.appendingPathComponent("entity.gpx")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>Fremont &amp; 4th</name><trkseg>
                <trkpt lat="36.1700" lon="-115.1440"><time>2026-11-21T18:00:00Z</time></trkpt>
                <trkpt lat="36.1701" lon="-115.1441"><time>2026-11-21T18:00:10Z</time></trkpt>
              </trkseg></trk>
            </gpx>

            """.utf8
        ).write(to: file)
        let result = try TestSupport.run(
            "vsh", ["gpx", file.path, "--json"], environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(result.stderr.suffix(300))")
        #expect(result.stdout.contains("\"points\":2"), "\(result.stdout)")
        #expect(result.stderr.contains("libxml2"), "libxml2 was not loaded for a GPX file with an entity")
    }
}

/// Issue 18: every command of `vsh` and `vsh-master` names itself. Without a `commandName`,
/// ArgumentParser derives the name from the type's (`String(describing:)`), which asks the Swift
/// runtime whether the type conforms to three printing protocols: each answer scans every
/// conformance record of every loaded library, a fifth of `vsh --help`'s time for 44 commands.
@Suite struct CommandNameTests {
    @Test func everyCommandConfigurationNamesItsCommand() throws {
        var configurations = 0
        for folder in ["Sources/vsh", "Sources/vsh-master"] {
            let url = TestSupport.packageRoot.appendingPathComponent(folder)
            let files = try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
                $0.hasSuffix(".swift")
            }
            for file in files {
                let source = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
                var rest = Substring(source)
                while let start = rest.range(of: "CommandConfiguration(") {
                    // The arguments up to the matching parenthesis.
                    var depth = 1
                    var end = start.upperBound
                    while depth > 0, end < rest.endIndex {
                        if rest[end] == "(" { depth += 1 } else if rest[end] == ")" { depth -= 1 }
                        end = rest.index(after: end)
                    }
                    configurations += 1
                    #expect(
                        rest[start.upperBound..<end].contains("commandName:"),
                        "\(folder)/\(file): a CommandConfiguration without a commandName")
                    rest = rest[end...]
                }
            }
        }
        #expect(configurations >= 44)
    }
}
