import Foundation
import Testing
import VSHCore
import VSHGeodesy
import VSHTestSupport

extension Workspace {
    func master(_ arguments: [String]) throws -> TestSupport.ProcessResult {
        try TestSupport.run("vsh-master", arguments + ["--hunts", hunts], currentDirectory: root)
    }

    func fileText(_ hunt: String) throws -> String {
        try String(contentsOfFile: hunts + "/\(hunt).geojson", encoding: .utf8)
    }

    /// A stop's geofence as written in its hunt file.
    func geofence(hunt: String, stop: String) throws -> Geofence {
        guard case .object(let doc) = try json(try fileText(hunt)),
            case .array(let features)? = doc["features"],
            case .object(let feature)? = features.first(where: { $0["id"]?.string == stop }),
            let geometry = feature["geometry"]
        else { throw FixtureError("no stop \(stop)") }
        return try HuntFile.geofence(from: geometry)
    }
}

func authoring(_ name: String) -> String {
    TestSupport.packageRoot.appendingPathComponent("Fixtures/authoring/\(name)").path
}

func tool(_ name: String, _ arguments: [String]) throws -> TestSupport.ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return TestSupport.ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
}

@Suite struct AuthoringTests {
    func newHunt() throws -> Workspace {
        let workspace = try Workspace()
        let created = try workspace.master([
            "hunt", "new", "test-walk", "--name", "Test Walk", "--difficulty", "easy", "--bonus", "50",
            "--timezone", "America/Los_Angeles",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        return workspace
    }

    /// Coordinates of all four hemispheres: a value that starts with "-" is the option's value,
    /// not another option (`--circle -33.8568,151.2153,60` used to fail with "Missing value", exit 64).
    /// Each stop is drawn with `vsh-master stop add --circle`, found by `vsh locate` and checked in
    /// at with `vsh checkin --fix`.
    @Test func coordinatesOfEveryHemisphereAreTaken() throws {
        let workspace = try Workspace(copyHunts: false)
        let made = try workspace.master([
            "hunt", "new", "world", "--name", "Around the World", "--timezone", "UTC",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let places: [(id: String, name: String, lat: String, lon: String)] = [
            ("eye", "London Eye", "51.5033", "-0.1196"),
            ("opera", "Sydney Opera House", "-33.8568", "151.2153"),
            ("liberty", "Statue of Liberty", "40.6892", "-74.0445"),
            ("cristo", "Cristo Redentor", "-22.9519", "-43.2105"),
        ]
        for place in places {
            let added = try workspace.master([
                "stop", "add", "--hunt", "world", "--id", place.id, "--name", place.name, "--points", "10",
                "--circle", "\(place.lat),\(place.lon),60",
            ])
            #expect(added.status == 0, "\(place.id): \(added.stderr)")
        }
        for place in places {
            let located = try workspace.vsh(["locate", place.lat, place.lon])
            #expect(located.status == 0, "\(place.id): \(located.stderr)")
            #expect(located.stdout.contains("inside \(place.name) (world/\(place.id))"), "\(located.stdout)")
            // A traveller at each place: one player at all four at once would be a teleport.
            #expect(try workspace.vsh(["player", "add", "Visitor \(place.id)"]).status == 0)
            let checked = try workspace.vsh([
                "checkin", "--player", "Visitor \(place.id)", "--fix", "\(place.lat),\(place.lon)",
                "--time", "2026-11-26T10:00:00Z", "--accuracy", "10", "--now", "2026-11-26T10:00:30Z",
                "--json",
            ])
            #expect(checked.status == 0, "\(place.id): \(checked.stderr)")
            let verdict = try json(checked.stdout)
            #expect(
                verdict["stop"]?.string == place.id && verdict["verdict"]?.string == "accepted",
                "\(checked.stdout)")
        }
    }

    /// The first `hunt new` makes the hunts folder (it used to fail until the user ran mkdir); a
    /// folder whose parent is missing is still an error.
    @Test func theFirstHuntMakesItsFolder() throws {
        let workspace = try Workspace()
        let folder = workspace.root.appendingPathComponent("my-hunts").path
        let created = try TestSupport.run(
            "vsh-master", ["hunt", "new", "first-walk", "--name", "First Walk", "--hunts", folder],
            currentDirectory: workspace.root)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("\(folder): folder created"))
        #expect(FileManager.default.fileExists(atPath: folder + "/first-walk.geojson"))
        let typo = workspace.root.appendingPathComponent("no-such-parent/hunts").path
        let refused = try TestSupport.run(
            "vsh-master", ["hunt", "new", "first-walk", "--name", "First Walk", "--hunts", typo],
            currentDirectory: workspace.root)
        #expect(refused.status == 66, "\(refused.stderr)")
        #expect(refused.stderr.contains("cannot create the hunts folder"))
        #expect(!FileManager.default.fileExists(atPath: typo))
    }

    /// A stop's image enters the folder without its EXIF; an imported stop's image comes along when it is beside the file (copied into the folder's
    /// images/), stays when the folder has it, and is left out with a note when it is nowhere (it
    /// used to stay as a reference to a file the folder did not have, without a word).
    @Test func importedImagesComeAlongOrAreLeftOutWithANote() throws {
        let workspace = try newHunt()
        let photo = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "lion", "--name", "Lion", "--points", "10",
                "--circle", "36.1025,-115.1714,40", "--image", photo,
            ]).status == 0)
        // What entered the folder is pixels only: exiftool finds no GPS, camera or EXIF in it (the
        // original is an iPhone photo with its position).
        let kept = try TestSupport.run(
            "/usr/bin/env", ["exiftool", "-json", "-a", "-G1", workspace.hunts + "/images/lion.jpg"])
        #expect(kept.status == 0)
        #expect(!kept.stdout.contains("GPS") && !kept.stdout.contains("[EXIF"), "\(kept.stdout)")
        #expect(!kept.stdout.contains("Apple"), "\(kept.stdout)")
        #expect(kept.stdout.contains("\"File:ImageWidth\""), "\(kept.stdout)")
        let original = try TestSupport.run("/usr/bin/env", ["exiftool", "-json", "-a", "-G1", photo])
        #expect(original.stdout.contains("GPS") && original.stdout.contains("Apple"))
        let kml = workspace.root.appendingPathComponent("walk.kml").path
        #expect(try workspace.master(["export", "test-walk", "--format", "kml", "-o", kml]).status == 0)

        func importInto(_ name: String) throws -> (TestSupport.ProcessResult, String) {
            let folder = workspace.root.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let result = try TestSupport.run("vsh-master", ["import", kml, "--hunts", folder])
            let text = (try? String(contentsOfFile: folder + "/test-walk.geojson", encoding: .utf8)) ?? ""
            return (result, text)
        }
        let (nowhere, bare) = try importInto("elsewhere")
        #expect(nowhere.status == 0, "\(nowhere.stderr)")
        #expect(nowhere.stderr.contains("stop lion's image images/lion.jpg is neither beside the file"))
        #expect(!bare.contains("images/lion.jpg"))

        let beside = workspace.root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: beside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: workspace.hunts + "/images/lion.jpg",
            toPath: beside.appendingPathComponent("lion.jpg").path)
        let (copied, text) = try importInto("copied")
        #expect(copied.status == 0 && copied.stderr.isEmpty, "\(copied.stderr)")
        #expect(text.contains(#""image": "images/lion.jpg""#))
        #expect(
            FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("copied/images/lion.jpg").path))
        #expect(
            try TestSupport.run(
                "vsh-master", ["validate", "--hunts", workspace.root.appendingPathComponent("copied").path]
            ).status == 0)
    }

    @Test func huntsAreCreatedChangedAndRemoved() throws {
        let workspace = try newHunt()
        #expect(try workspace.fileText("test-walk").contains(#""bonus_points": 50"#))
        #expect(
            try workspace.master([
                "hunt", "set", "test-walk", "--ordered", "--starts", "2026-12-31T18:00:00-08:00", "--bonus",
                "75",
            ]).status == 0)
        let text = try workspace.fileText("test-walk")
        #expect(
            text.contains(#""ordered": true"#) && text.contains(#""starts_at": "2027-01-01T02:00:00Z""#)
                && text.contains(#""bonus_points": 75"#))
        #expect(try workspace.master(["hunt", "new", "test-walk", "--name", "Again"]).status == 65)
        #expect(try workspace.master(["hunt", "new", "Bad Id", "--name", "X"]).status == 64)
        #expect(try workspace.master(["hunt", "set", "test-walk", "--difficulty", "insane"]).status == 64)
        #expect(try workspace.master(["hunt", "rm", "strip-classics"]).stderr.contains("has 10 stops"))
        #expect(try workspace.master(["hunt", "rm", "test-walk"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: workspace.hunts + "/test-walk.geojson"))
    }

    @Test func aWalkedPerimeterIsClosedCleanedAndSimplified() throws {
        let workspace = try newHunt()
        let added = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "caesars-fountains", "--name",
            "Caesars Palace Fountains", "--points", "40",
            "--gpx", authoring("plaza-perimeter.gpx"),
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let fence = try workspace.geofence(hunt: "test-walk", stop: "caesars-fountains")
        // A 60 x 40 m forecourt walked with GPS noise, a jitter loop and a self-crossing: one polygon, no holes.
        #expect(fence.polygons.count == 1 && fence.polygons[0].holes.isEmpty)
        let area = Geodesic.areaSquareMeters(of: fence)
        #expect(abs(area - 2400) / 2400 < 0.1, "area \(area)")
        #expect(fence.allPositions.count < 40)  // 120 walked points, simplified
        // A coarser simplification keeps fewer positions.
        #expect(
            try workspace.master([
                "stop", "set", "caesars-fountains", "--gpx", authoring("plaza-perimeter.gpx"), "--simplify",
                "8",
            ]).status == 0)
        #expect(
            try workspace.geofence(hunt: "test-walk", stop: "caesars-fountains").allPositions.count
                < fence.allPositions.count)
    }

    @Test func aWalkThatDoesNotComeBackIsRefusedAndNothingChanges() throws {
        let workspace = try newHunt()
        let before = try workspace.fileText("test-walk")
        let refused = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "x", "--name", "X", "--points", "1", "--gpx",
            authoring("open-walk.gpx"),
        ])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains(
                "open-walk.gpx: the walk does not come back near its start (it ends 223 m away"))
        #expect(try workspace.fileText("test-walk") == before)
    }

    /// Real tracks: the corpus loops come back, the hikes and rides do not.
    @Test(.needsCorpus) func corpusTracksAreAcceptedOrRefusedAsPerimeters() throws {
        let corpus = try #require(TestSupport.corpus).appendingPathComponent("gpx")
        let workspace = try newHunt()
        for (file, accepted) in [
            ("gpxpy__around-visnjan-with-car.gpx", true), ("gpxpy__Mojstrovka.gpx", true),
            ("gpxpy__cerknicko-jezero-with-elevations-zero.gpx", false),
            ("gpxpy__korita-zbevnica.gpx", false),
            ("togeojson__osm.gpx", false), ("togeojson__Friday-Evening-Run.gpx", false),
            ("gpsbabel__track__segmented_tracks.gpx", false),
            ("gpsbabel__track__garmin-vivosmart-hr.gpx", false), ("togeojson__empty_trk.gpx", false),
            // No track: the route is the perimeter (a closed one, drawn in a planner).
            ("gpxpy__route.gpx", true),
        ] {
            let id =
                "corpus-"
                + String(file.prefix(20)).lowercased().replacingOccurrences(of: "_", with: "-")
                .replacingOccurrences(of: ".", with: "-")
            let result = try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", id, "--name", file, "--points", "1", "--gpx",
                corpus.appendingPathComponent(file).path,
            ])
            #expect((result.status == 0) == accepted, "\(file): \(result.stderr)")
            if !accepted {
                #expect(
                    result.status == 65 && result.stderr.split(separator: "\n").count == 1
                        && result.stderr.contains(file), "\(file): \(result.stderr)")
            }
        }
    }

    @Test func cornerPhotosMakeAHullAndTheFirstIsTheImage() throws {
        let workspace = try newHunt()
        let corners = ["corner-ne.jpg", "corner-nw.jpg", "corner-sw.jpg", "corner-se.jpg"].map(authoring)
        let added = try workspace.master(
            [
                "stop", "add", "--hunt", "test-walk", "--id", "el-cortez", "--name", "El Cortez", "--points",
                "30", "--photos",
            ] + corners + ["--buffer", "5"])
        #expect(added.status == 0, "\(added.stderr)")
        let area = Geodesic.areaSquareMeters(of: try workspace.geofence(hunt: "test-walk", stop: "el-cortez"))
        // A 50 m square grown by 5 m with rounded corners: 60 x 60 less the corners' rounding.
        #expect(area > 3_450 && area < 3_600, "area \(area)")
        #expect(try workspace.fileText("test-walk").contains(#""image": "images/el-cortez.jpg""#))
        // The first corner photo, drawn anew: its pixels, not its GPS.
        let image = workspace.hunts + "/images/el-cortez.jpg"
        #expect(try Data(contentsOf: URL(fileURLWithPath: image)).starts(with: [0xFF, 0xD8]))
        #expect(
            try TestSupport.run("/usr/bin/env", ["exiftool", "-GPSLatitude", image]).stdout.isEmpty)
        // A photo without GPS is named.
        let noGPS = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/no-gps.jpg").path
        let refused = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "x", "--name", "X", "--points", "1", "--photos",
            corners[0], noGPS, corners[1],
        ])
        #expect(refused.status == 65 && refused.stderr.contains("no-gps.jpg: the photo has no GPS position"))
        let two = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "x", "--name", "X", "--points", "1", "--photos",
            corners[0], corners[1],
        ])
        #expect(two.stderr.contains("take at least 3 corners"))
    }

    @Test func circlesGeoJSONAndWKT() throws {
        let workspace = try newHunt()
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "mgm-lion", "--name", "MGM Grand Lion",
                "--points", "30", "--circle", "36.1025,-115.1714,40",
            ]).status == 0)
        let circle = try workspace.geofence(hunt: "test-walk", stop: "mgm-lion")
        // A 32-gon inscribed in the geodesic circle: 99.4 % of pi r².
        #expect(abs(Geodesic.areaSquareMeters(of: circle) / (Double.pi * 1600) - 0.9936) < 0.002)
        for p in circle.allPositions {
            #expect(abs(Geodesic.distanceMeters(Coordinate(unchecked: 36.1025, -115.1714), p) - 40) < 0.01)
        }
        let geojson = workspace.root.appendingPathComponent("lake.geojson")
        try Data(
            #"{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[-115.175, 36.111], [-115.173, 36.111], [-115.173, 36.113], [-115.175, 36.111]]]}}"#
                .utf8
        ).write(to: geojson)
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "lake", "--name", "Lake", "--points", "5",
                "--geojson", geojson.path,
            ]).status == 0)
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "plaza", "--name", "Plaza", "--points", "5",
                "--wkt",
                "POLYGON((-115.160 36.120, -115.159 36.120, -115.159 36.121, -115.160 36.121, -115.160 36.120))",
            ]).status == 0)
        let before = try workspace.fileText("test-walk")
        let bowtie = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "bow", "--name", "Bow", "--points", "5", "--wkt",
            "POLYGON((-115.16 36.12, -115.159 36.121, -115.159 36.12, -115.16 36.121, -115.16 36.12))",
        ])
        #expect(bowtie.status == 65 && bowtie.stderr.contains("self-intersection"))
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "w", "--name", "W", "--points", "5", "--wkt",
                "LINESTRING(0 0, 1 1)",
            ]).status == 65)
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "z", "--name", "Z", "--points", "5", "--circle",
                "36.1,-115.1,10", "--wkt", "POLYGON((0 0,1 0,1 1,0 0))",
            ]).status == 64)
        #expect(try workspace.fileText("test-walk") == before)
    }

    @Test func stopsAreListedShownMovedChangedAndRemoved() throws {
        let workspace = try newHunt()
        let original = try workspace.fileText("strip-classics")
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "mgm-lion", "--name", "MGM Grand Lion",
                "--points", "30", "--circle", "36.1025,-115.1714,40",
            ]).status == 0)
        #expect(
            try workspace.master(["stop", "list", "--hunt", "test-walk"]).stdout.contains(
                "mgm-lion  test-walk  MGM Grand Lion      30     4994"))
        #expect(
            try workspace.master(["stop", "show", "mgm-lion"]).stdout.hasPrefix(
                "MGM Grand Lion (test-walk/mgm-lion), 30 points\n"))
        #expect(
            try workspace.master(["stop", "set", "mgm-lion", "--points", "35", "--name", "The MGM Lion"])
                .status == 0)
        #expect(try workspace.master(["stop", "move", "mgm-lion", "--to", "strip-classics"]).status == 0)
        #expect(try workspace.fileText("strip-classics").contains(#""name": "The MGM Lion""#))
        #expect(!(try workspace.fileText("test-walk").contains("mgm-lion")))
        // Moving a stop into a hunt where its id... is fine; adding a duplicate id anywhere is not.
        #expect(
            try workspace.master([
                "stop", "add", "--hunt", "test-walk", "--id", "sphere", "--name", "S", "--points", "1",
                "--circle", "36.1,-115.1,10",
            ]).stderr.contains("already exists in strip-classics"))
        #expect(try workspace.master(["stop", "rm", "mgm-lion"]).status == 0)
        #expect(try workspace.fileText("strip-classics") == original)
        #expect(try workspace.master(["stop", "rm", "mgm-lion"]).status == 65)
    }

    /// A featured stop and its sponsor line are set from the command line (they used to need the
    /// file edited by hand), written to the file, published, and taken back.
    @Test func featuredAndSponsoredStopsHaveFlags() throws {
        let workspace = try newHunt()
        let added = try workspace.master([
            "stop", "add", "--hunt", "test-walk", "--id", "cafe-luz", "--name", "Café Luz", "--points", "20",
            "--circle", "36.1025,-115.1714,30", "--featured", "--sponsor", "  Café Luz, coffee since 1962 ",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let text = try workspace.fileText("test-walk")
        #expect(
            text.contains(#""featured": true"#) && text.contains(#""sponsor": "Café Luz, coffee since 1962""#)
        )
        #expect(try workspace.vsh(["sync"]).status == 0)
        let hunt = try json(try workspace.vsh(["hunt", "test-walk", "--json"]).stdout)
        let stop = hunt["stops"]?.array.first { $0["id"]?.string == "cafe-luz" }
        #expect(stop?["featured"] == .bool(true))
        #expect(stop?["sponsor"]?.string == "Café Luz, coffee since 1962")
        #expect(
            try workspace.master(["stop", "set", "cafe-luz", "--no-featured", "--sponsor", "none"]).status
                == 0)
        let plain = try workspace.fileText("test-walk")
        #expect(!plain.contains("featured\": true") && !plain.contains("sponsor"))
        for wrong in ["", "   ", String(repeating: "x", count: Stop.maxSponsorLength + 1)] {
            let refused = try workspace.master(["stop", "set", "cafe-luz", "--sponsor", wrong])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--sponsor takes 1 to 120 characters"), "\(refused.stderr)")
        }
        #expect(try workspace.fileText("test-walk") == plain)
    }

    /// Removing a stop or hunt players hold points from says so and needs --force: the next sync
    /// takes those points away.
    @Test func removalsSayWhatTheyTakeFromPlayers() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann", "Bo")
        #expect(try workspace.visit("Ann", "welcome-sign", at: "2026-11-21T18:00:00Z").status == 0)
        #expect(try workspace.visit("Bo", "welcome-sign", at: "2026-11-21T18:05:00Z").status == 0)
        #expect(try workspace.visit("Bo", "bellagio-fountains", at: "2026-11-21T18:45:00Z").status == 0)
        let before = try workspace.totals()
        let refused = try workspace.master(["stop", "rm", "welcome-sign"])
        #expect(refused.status == 65)
        #expect(
            refused.stderr
                == "vsh-master: stop \"welcome-sign\": 2 players hold 100 points from it, which the next vsh sync "
                + "takes away; use --force to remove it\n")
        #expect(try workspace.fileText("strip-classics").contains("\"welcome-sign\""))
        let hunt = try workspace.master(["hunt", "rm", "strip-classics", "--db", workspace.db])
        #expect(hunt.status == 65)
        #expect(hunt.stderr.contains("has 10 stops; 2 players hold"), "\(hunt.stderr)")
        let forced = try workspace.master(["stop", "rm", "welcome-sign", "--force"])
        #expect(forced.status == 0)
        #expect(
            forced.stdout.hasSuffix(
                "removed welcome-sign (2 players hold 100 points from it until the next vsh sync)\n"))
        // The next sync takes them.
        #expect(try workspace.vsh(["sync"]).status == 0)
        let after = try workspace.totals()
        #expect(after["Ann"]!.points < before["Ann"]!.points && after["Bo"]!.points < before["Bo"]!.points)
        // A stop nobody visited goes without --force; a --db that does not exist is an error.
        #expect(try workspace.master(["stop", "rm", "luxor-sphinx"]).status == 0)
        #expect(
            try workspace.master(["stop", "rm", "sphere", "--db", workspace.root.path + "/vhs.sqlite"]).status
                == 66)
    }

    @Test func validateWarnsWhatAnOrganiserWantsToKnow() throws {
        let workspace = try newHunt()
        for args in [
            ["--id", "tiny", "--circle", "36.1020,-115.1700,2"],
            ["--id", "big-a", "--circle", "36.1000,-115.1700,200"],
            ["--id", "big-b", "--circle", "36.1020,-115.1700,200"],
            ["--id", "far", "--circle", "36.4000,-115.1700,50"],
        ] {
            let r = try workspace.master(
                ["stop", "add", "--hunt", "test-walk", "--name", "S", "--points", "1"] + args)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let result = try workspace.master(["validate"])
        #expect(result.status == 0)
        let text = result.stdout
        #expect(text.contains(#"stop "tiny": only 12 m²"#))
        #expect(
            text.contains(
                #"stop "tiny": the hunt's tolerance (25 m) is larger than the stop (about 2 m in radius)"#))
        #expect(text.contains(#"stops "big-a" and "big-b" overlap"#))
        #expect(text.contains(#"stops "tiny" and "far" are 33 km apart"#))
        #expect(
            text.contains(
                #"stop "tiny": smaller (about 4 m across) than the GPS accuracy the hunt accepts (50 m)"#))
        #expect(text.hasSuffix("3 hunts, 21 stops, 11 badges: valid (8 warnings)\n"), "\(text)")
        // The shipped hunts: no warnings.
        #expect(
            try TestSupport.run(
                "vsh-master", ["validate", TestSupport.packageRoot.appendingPathComponent("hunts").path]
            ).stdout.hasSuffix("11 badges: valid\n"))
    }

    @Test func theShippedFilesAreInTheStableForm() throws {
        let result = try TestSupport.run(
            "vsh-master",
            ["format", "--check", "--hunts", TestSupport.packageRoot.appendingPathComponent("hunts").path])
        #expect(result.status == 0, "\(result.stdout)")
        let workspace = try Workspace()
        let path = workspace.hunts + "/downtown-fremont.geojson"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try Data(original.replacingOccurrences(of: "\n  ", with: "\n").utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(try workspace.master(["format", "--check"]).status == 1)
        #expect(try workspace.master(["format"]).stdout == "\(path): formatted\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
    }
}

@Suite struct InteroperabilityTests {
    let hunts = TestSupport.packageRoot.appendingPathComponent("hunts").path

    @Test func ogrinfoReadsTheExportedKMLAndGeoJSON() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-export")
        for (format, file) in [("kml", "strip.kml"), ("geojson", "strip.geojson")] {
            let out = folder.appendingPathComponent(file).path
            #expect(
                try TestSupport.run(
                    "vsh-master",
                    ["export", "strip-classics", "--format", format, "-o", out, "--hunts", hunts]
                ).status == 0)
            let layers = try tool("ogrinfo", ["-ro", "-q", out])
            #expect(layers.status == 0, "\(layers.stderr)")
            let layer = format == "kml" ? "Strip Classics" : "strip"
            let summary = try tool("ogrinfo", ["-ro", "-so", out, layer])
            #expect(
                summary.stdout.contains("Feature Count: 10"), "\(format): \(summary.stdout)\(summary.stderr)")
        }
        // The MultiPolygon stop and the stop with a hole survive as such.
        let kml = try tool(
            "ogrinfo",
            [
                "-ro", folder.appendingPathComponent("strip.kml").path, "Strip Classics", "-where",
                "Name = 'Flamingo Wildlife Habitat'",
            ])
        #expect(kml.stdout.contains("POLYGON ((") && kml.stdout.contains("),("))
    }

    @Test func gpsbabelReadsTheExportedGPX() throws {
        let out = try TestSupport.temporaryDirectory("vsh-export").appendingPathComponent("strip.gpx").path
        #expect(
            try TestSupport.run(
                "vsh-master", ["export", "strip-classics", "--format", "gpx", "-o", out, "--hunts", hunts]
            ).status == 0)
        let csv = try tool("gpsbabel", ["-i", "gpx", "-f", out, "-o", "unicsv", "-F", "-"])
        #expect(csv.status == 0, "\(csv.stderr)")
        // gpsbabel ends lines with CRLF ("\r\n" is one Character in Swift: split on isNewline).
        let rows = csv.stdout.split(whereSeparator: \.isNewline)
        #expect(rows.count == 11)  // a header and ten waypoints
        guard rows.count == 11 else { return }
        #expect(rows[1].contains("Welcome to Fabulous Las Vegas Sign"))
        // Every waypoint lies inside its stop (centroid, or a point on the surface).
        let workspace = try Workspace()
        for row in rows.dropFirst() {
            let fields = row.split(separator: ",")
            let located = try json(
                try workspace.vsh(["locate", String(fields[1]), String(fields[2]), "--json"]).stdout)
            #expect(located["inside"]?.array.isEmpty == false, "\(row)")
        }
    }

    @Test func exportThenImportGivesTheSameFileByteForByte() throws {
        for hunt in ["strip-classics", "downtown-fremont"] {
            for format in ["geojson", "kml"] {
                let folder = try TestSupport.temporaryDirectory("vsh-roundtrip")
                let exported = folder.appendingPathComponent("\(hunt).\(format)").path
                #expect(
                    try TestSupport.run(
                        "vsh-master", ["export", hunt, "--format", format, "-o", exported, "--hunts", hunts]
                    ).status == 0)
                let target = folder.appendingPathComponent("hunts")
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
                let imported = try TestSupport.run(
                    "vsh-master", ["import", exported, "--hunts", target.path])
                #expect(imported.status == 0, "\(imported.stderr)")
                #expect(
                    try Data(contentsOf: target.appendingPathComponent("\(hunt).geojson"))
                        == Data(contentsOf: URL(fileURLWithPath: hunts + "/\(hunt).geojson")),
                    "\(hunt) via \(format)")
            }
        }
    }

    @Test func importsFromOtherTools() throws {
        let workspace = try Workspace()
        let kml = workspace.root.appendingPathComponent("earth.kml")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Neon Night</name>
            <Folder><Placemark><name>Golden Nugget</name><Polygon><outerBoundaryIs><LinearRing><coordinates>
              -115.1452,36.1699,0 -115.1442,36.1699,0 -115.1442,36.1707,0 -115.1452,36.1707,0 -115.1452,36.1699,0
            </coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>
            <Placemark><name>A pin</name><Point><coordinates>-115.14,36.17,0</coordinates></Point></Placemark></Folder>
            </Document></kml>
            """.utf8
        ).write(to: kml)
        let result = try workspace.master(["import", kml.path, "--points", "25"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(#"placemark "A pin" has no polygon (Point): left out"#))
        let text = try workspace.fileText("neon-night")
        #expect(text.contains(#""id": "golden-nugget""#) && text.contains(#""points": 25"#))
        #expect(try workspace.master(["import", kml.path]).stderr.contains("already exists; use --replace"))
        // A plain FeatureCollection from a GIS tool needs an id and a name.
        let gis = workspace.root.appendingPathComponent("qgis.geojson")
        try Data(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Plaza Hotel"},"geometry":{"type":"Polygon","coordinates":[[[-115.147,36.1715],[-115.1465,36.1715],[-115.1465,36.172],[-115.147,36.1715]]]}}]}"#
                .utf8
        ).write(to: gis)
        #expect(try workspace.master(["import", gis.path]).status == 64)
        #expect(
            try workspace.master(["import", gis.path, "--id", "main-street", "--name", "Main Street"]).status
                == 0)
        #expect(try workspace.fileText("main-street").contains(#""id": "plaza-hotel""#))
    }

    @Test func theMapIsAnSVGThatRenders() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-map")
        let svg = folder.appendingPathComponent("strip.svg").path
        let walk = TestSupport.packageRoot.appendingPathComponent("Fixtures/walks/strip-south.gpx").path
        let result = try TestSupport.run(
            "vsh-master", ["map", "strip-classics", "-o", svg, "--track", walk, "--hunts", hunts])
        #expect(result.stdout.hasSuffix("10 stops, 551 track points\n"))
        let png = folder.appendingPathComponent("strip.png").path
        let rendered = try tool("rsvg-convert", [svg, "-o", png])
        #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
