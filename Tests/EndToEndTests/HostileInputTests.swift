import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Files built to break a reader (Fixtures/hostile, made by Fixtures/scripts/make_hostile.py)
/// and inputs past vsh's limits: each gets one line naming the file and the problem, exit 65,
/// and leaves the database as it was.
@Suite struct HostileInputTests {
    static func hostile(_ name: String) -> String {
        TestSupport.packageRoot.appendingPathComponent("Fixtures/hostile/\(name)").path
    }

    /// One error line, naming `file`, saying `problem`.
    static func expectOneLine(
        _ result: TestSupport.ProcessResult, _ file: String, _ problem: String, status: Int32 = 65
    ) {
        #expect(result.status == status, "\(file): exit \(result.status)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(file): \(result.stderr.prefix(400))")
        #expect(
            lines.first?.hasPrefix("vsh: \(file)") == true && result.stderr.contains(problem),
            "\(file): \(result.stderr.prefix(400))")
    }

    @Test(arguments: [
        ("encoding-shift-jis.gpx", "cannot be converted from its declared encoding"),
        ("billion-laughs.gpx", "Entity 'lol9' not defined"),
        ("external-entity.gpx", "Entity 'secret' not defined"),
        ("deep-nesting.gpx", "nested deeper than 256 levels"),
    ])
    func hostileGPXIsRefusedInOneLine(_ name: String, _ problem: String) throws {
        let path = Self.hostile(name)
        let result = try TestSupport.run("vsh", ["gpx", path])
        Self.expectOneLine(result, path, problem)
        #expect(!result.stdout.contains("root:") && !result.stderr.contains("root:"))
        // Replay reads GPX the same way and writes nothing.
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        Self.expectOneLine(try workspace.vsh(["replay", path, "--player", "Ann"]), path, problem)
        #expect(try workspace.totals()["Ann"]?.checkins == 0)
    }

    /// A GPX whose every point is invalid is an error (it used to print "points 0" and exit 0); a
    /// GPX that is merely empty (togeojson's empty track) is still described.
    @Test(.needsCorpus) func aGPXWithoutOneUsablePointIsAnError() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-gpx")
        let path = folder.appendingPathComponent("undefined.gpx").path
        try Data(
            """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="undefined" lon="-115.1"><time>2026-11-21T10:00:00Z</time></trkpt>
            <trkpt lat="36.1" lon="undefined"><time>2026-11-21T10:01:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        for arguments in [["gpx", path], ["gpx", "--json", path]] {
            let result = try TestSupport.run("vsh", arguments)
            #expect(result.status == 65, "\(arguments): exit \(result.status)")
            #expect(result.stdout.isEmpty, "\(result.stdout)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 3, "\(result.stderr)")
            #expect(lines.last == "vsh: \(path): no usable point (2 skipped, every one invalid)")
        }
        let empty = try #require(TestSupport.corpus).appendingPathComponent("gpx/togeojson__empty_trk.gpx")
            .path
        let described = try TestSupport.run("vsh", ["gpx", empty])
        #expect(described.status == 0, "\(described.stderr)")
        #expect(described.stdout.contains("points 0"))
    }

    @Test(arguments: [
        ("control-characters.geojson", "\"name\" contains a control character (U+001B)"),
        ("rtl-override.geojson", "\"name\" contains a text-direction control (U+202E)"),
        ("deep-nesting.geojson", "nesting deeper than 256 levels"),
        ("huge-number.geojson", "number out of range"),
    ])
    func hostileHuntFilesAreRefusedAndLoadNothing(_ name: String, _ problem: String) throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["sync"]).status == 0)
        let target = URL(fileURLWithPath: workspace.hunts).appendingPathComponent("hostile.geojson")
        try FileManager.default.copyItem(atPath: Self.hostile(name), toPath: target.path)
        let result = try workspace.vsh(["sync"])
        Self.expectOneLine(result, target.path, problem)
        let health = try json(try workspace.vsh(["doctor", "--json"], hunts: false).stdout)
        #expect(health["stops"] == .int(17), "the shipped hunts' 17 stops, unchanged")
    }

    @Test func absurdDimensionsAreRefusedBeforeDecoding() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let path = Self.hostile("absurd-dimensions.jpg")
        let result = try workspace.vsh(["checkin", "--player", "Ann", "--photo", path, "--now", fixtureNow])
        Self.expectOneLine(result, path, "declares 65500 x 65500 pixels")
        #expect(try workspace.totals()["Ann"]?.checkins == 0)
        // vsh exif reads headers only, and says what the header claims.
        let exif = try json(try TestSupport.run("vsh", ["exif", "--json", path]).stdout)
        #expect(exif["width"] == .int(65500))
    }

    @Test func anEXIFChainThatLoopsIsReadOnce() throws {
        let looped = try json(
            try TestSupport.run("vsh", ["exif", "--json", Self.hostile("exif-loop.jpg")]).stdout)
        let original = try json(
            try TestSupport.run(
                "vsh",
                [
                    "exif", "--json",
                    TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path,
                ]
            ).stdout)
        #expect(looped["lat"] == original["lat"] && looped["gps_time"] == original["gps_time"])
    }

    @Test func aPhotoOverTheSizeLimitIsRefusedWithoutReadingIt() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        // A real JPEG start, then a hole: 65 MiB on paper, a few kB on disk.
        let path = workspace.root.appendingPathComponent("huge.jpg").path
        try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg"))).write(
            to: URL(fileURLWithPath: path))
        #expect(truncate(path, 65 << 20) == 0)
        let result = try workspace.vsh(["checkin", "--player", "Ann", "--photo", path, "--now", fixtureNow])
        Self.expectOneLine(result, path, "the photo is 65 MiB; the limit is 64 MiB")
        #expect(try workspace.totals()["Ann"]?.checkins == 0)
    }

    @Test func gpxWithGiganticAttributesIsRefused() throws {
        let folder = try TestSupport.temporaryDirectory()
        let head = "<?xml version=\"1.0\"?><gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\""
        let tail = "><trk><trkseg><trkpt lat=\"36.1\" lon=\"-115.1\"/></trkseg></trk></gpx>"
        let long = folder.appendingPathComponent("long-attribute.gpx").path
        try Data((head + " creator=\"" + String(repeating: "A", count: 12_000_000) + "\"" + tail).utf8).write(
            to: URL(fileURLWithPath: long))
        Self.expectOneLine(try TestSupport.run("vsh", ["gpx", long]), long, "longer than 10,000,000 bytes")
        // 300,000 attributes on one point: libxml2 2.9 would compare them pairwise for minutes.
        let many = folder.appendingPathComponent("many-attributes.gpx").path
        let attributes = (0..<300_000).map { "a\($0)=\"x\"" }.joined(separator: " ")
        try Data(
            (head + "><trk><trkseg><trkpt lat=\"36.1\" lon=\"-115.1\" " + attributes
                + "/></trkseg></trk></gpx>").utf8
        )
        .write(to: URL(fileURLWithPath: many))
        Self.expectOneLine(try TestSupport.run("vsh", ["gpx", many]), many, "more than 1000 attributes")
    }

    @Test func huntFilesWithMillionsOfVerticesAreRefused() throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["sync"]).status == 0)
        func ring(_ n: Int) -> String {
            (0...n).map { k -> String in
                let angle = Double(k % n) / Double(n) * 2 * Double.pi
                return String(
                    format: "[%.7f,%.7f]", -115.1727 + 0.0004 * cos(angle), 36.0820 + 0.0003 * sin(angle))
            }.joined(separator: ",")
        }
        func file(_ n: Int) -> String {
            """
            {"type":"FeatureCollection","hunt":{"id":"dense","name":"Dense","difficulty":"easy"},"features":[
            {"type":"Feature","id":"sign","properties":{"name":"Sign","points":10},"geometry":{"type":"Polygon","coordinates":[[\(ring(n))]]}}]}
            """
        }
        try workspace.write("dense.geojson", file(25_000))
        let path = URL(fileURLWithPath: workspace.hunts).appendingPathComponent("dense.geojson").path
        Self.expectOneLine(
            try workspace.vsh(["sync"]), path, "geometry has 25001 positions; the limit is 20000")
        // 1,000,000 vertices do not fit in the 16 MiB a hunt file may have; the file is not parsed.
        try workspace.write("dense.geojson", file(1_000_000))
        // The size said is the file's own (it used to be what was read of it: the limit + 1).
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 20_000_000)
        Self.expectOneLine(
            try workspace.vsh(["sync"]), path, "file is \(size) bytes; the limit is 16777216")
        #expect(try json(try workspace.vsh(["doctor", "--json"], hunts: false).stdout)["stops"] == .int(17))
    }

    /// Ids become SQL values and file names: only slugs. Names are shown: stored and shown as they are.
    @Test func idsWithSQLOrPathsAreRefusedAndNamesAreStoredVerbatim() throws {
        let workspace = try Workspace()
        let sign =
            "[[-115.1729,36.0819],[-115.1725,36.0819],[-115.1725,36.0822],[-115.1729,36.0822],[-115.1729,36.0819]]"
        func hunt(id: String, stopID: String, name: String) -> String {
            """
            {"type":"FeatureCollection","hunt":{"id":\(JSONValue.string(id).compactText),"name":"Hostile","difficulty":"easy"},"features":[
            {"type":"Feature","id":\(JSONValue.string(stopID).compactText),"properties":{"name":\(JSONValue.string(name).compactText),"points":10},
            "geometry":{"type":"Polygon","coordinates":[\(sign)]}}]}
            """
        }
        for bad in ["x'); DROP TABLE stops;--", "../../etc/passwd", "a/b", "tab\tid", "r\u{202E}lt"] {
            try workspace.write("hostile.geojson", hunt(id: "hostile", stopID: bad, name: "Sign"))
            let result = try workspace.vsh(["sync"])
            #expect(result.status == 65, "stop id \(bad) was accepted")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let bobby = "Bobby'); DROP TABLE stops;-- ✓ شارع"
        try workspace.write("hostile.geojson", hunt(id: "hostile", stopID: "sign", name: bobby))
        #expect(try workspace.vsh(["sync"]).status == 0)
        let shown = try json(try workspace.vsh(["hunt", "hostile", "--json"]).stdout)
        #expect(shown["stops"]?.array.first?["name"]?.string == bobby)
        #expect(try json(try workspace.vsh(["doctor", "--json"], hunts: false).stdout)["stops"] == .int(18))
    }
}
