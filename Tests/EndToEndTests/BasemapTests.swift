import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// `vsh-master basemap import` on a real OpenStreetMap extract (Fixtures/osm/vaduz.osm, ODbL):
/// the ways it keeps checked against osmium-tool's own reading of the same file, the same result
/// from `.osm.pbf`, GeoJSON from `osmium export`, bad input refused, the file served at
/// `/v1/basemap` and drawn under the stops.
@Suite struct BasemapTests {
    static let extract = TestSupport.packageRoot.appendingPathComponent("Fixtures/osm/vaduz.osm").path
    static let streetValues = [
        "motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "service",
        "living_street", "road", "motorway_link", "trunk_link", "primary_link", "secondary_link",
        "tertiary_link",
    ]
    static let footwayValues = [
        "footway", "path", "pedestrian", "steps", "cycleway", "track", "bridleway", "corridor",
    ]

    /// How many ways of the extract osmium finds with these tags.
    static func osmiumWays(_ filter: String) throws -> Int {
        let run = try TestSupport.run(
            "/usr/bin/env",
            ["osmium", "tags-filter", "--no-progress", extract, filter, "-f", "opl", "-o", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { $0.hasPrefix("w") }.count
    }

    /// The basemap's features by kind.
    static func kinds(_ path: String) throws -> [String: Int] {
        let document = try json(try String(contentsOfFile: path, encoding: .utf8))
        var counts: [String: Int] = [:]
        for feature in document["features"]?.array ?? [] {
            counts[feature["properties"]?["kind"]?.string ?? "?", default: 0] += 1
        }
        return counts
    }

    /// The basemap's features, without its `source` line.
    static func features(_ path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: "\"features\"") else { throw FixtureError("\(path): no features") }
        return String(text[start.lowerBound...])
    }

    @Test func anOpenStreetMapExtractBecomesTheBasemap() async throws {
        let workspace = try Workspace()
        let basemap = workspace.hunts + "/basemap.json"
        let imported = try workspace.master(["basemap", "import", Self.extract])
        #expect(imported.status == 0, "\(imported.stderr)")
        let kinds = try Self.kinds(basemap)
        #expect(
            kinds["street"] == (try Self.osmiumWays("w/highway=" + Self.streetValues.joined(separator: ","))))
        #expect(
            kinds["footway"]
                == (try Self.osmiumWays("w/highway=" + Self.footwayValues.joined(separator: ","))))
        // Buildings: the closed ways osmium finds with a building tag (relations are not read).
        #expect(kinds["building"] == (try Self.osmiumWays("w/building")))
        #expect(kinds["water"] ?? 0 >= 1)
        #expect(
            imported.stdout.contains("\(kinds["street"]!) streets, \(kinds["footway"]!) footpaths"),
            "\(imported.stdout)")
        let text = try String(contentsOfFile: basemap, encoding: .utf8)
        #expect(text.contains("© OpenStreetMap contributors (ODbL)"))
        #expect(text.contains("\"name\":\"Städtle\""))
        // The hunt files still validate: basemap.json is not a hunt file.
        #expect(try workspace.master(["validate"]).status == 0)

        // The same extract as .osm.pbf (osmium-tool reads it): the same features.
        let pbf = workspace.root.appendingPathComponent("vaduz.osm.pbf").path
        #expect(
            try TestSupport.run("/usr/bin/env", ["osmium", "cat", "--no-progress", Self.extract, "-o", pbf])
                .status == 0)
        let fromXML = try Self.features(basemap)
        #expect(try workspace.master(["basemap", "import", pbf]).status == 0)
        #expect(try Self.features(basemap) == fromXML)

        // GeoJSON with OpenStreetMap's tags (osmium export): every street and footpath again.
        let exported = workspace.root.appendingPathComponent("vaduz.geojson").path
        #expect(
            try TestSupport.run(
                "/usr/bin/env", ["osmium", "export", "--no-progress", Self.extract, "-o", exported]
            ).status == 0)
        #expect(try workspace.master(["basemap", "import", exported]).status == 0)
        let fromGeoJSON = try Self.kinds(basemap)
        #expect(
            (fromGeoJSON["street"] ?? 0) + (fromGeoJSON["footway"] ?? 0) >= kinds["street"]! + kinds[
                "footway"]!)

        // Bad input: one clear error each, the last basemap kept.
        let before = try String(contentsOfFile: basemap, encoding: .utf8)
        let broken = workspace.root.appendingPathComponent("broken.osm").path
        try Data("<osm><node id=\"1\"".utf8).write(to: URL(fileURLWithPath: broken))
        let malformed = try workspace.master(["basemap", "import", broken])
        #expect(malformed.status == 65)
        #expect(malformed.stderr.contains("broken.osm"), "\(malformed.stderr)")
        let kml = try workspace.master([
            "basemap", "import", workspace.root.appendingPathComponent("map.txt").path,
        ])
        #expect(kml.status == 64)
        #expect(try String(contentsOfFile: basemap, encoding: .utf8) == before)
    }

    /// A hunt in Vaduz: its players' map draws the streets of the extract under the stops
    /// (Tests/Browser/basemap_test.py); the server answers the file at /v1/basemap.
    @Test func theMapsDrawTheBasemapUnderTheStops() async throws {
        let workspace = try Workspace()
        try workspace.write("vaduz-town.geojson", Self.vaduz)
        #expect(try workspace.master(["basemap", "import", Self.extract]).status == 0)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let empty = try ServedVSH(workspace: try Workspace())
        defer { empty.stop() }
        let none = try await empty.call("GET", "/v1/basemap")
        #expect(none.status == 200)
        #expect(try json(none.body)["features"]?.array.isEmpty == true)
        let answer = try await server.call("GET", "/v1/basemap")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "application/geo+json")
        #expect(
            answer.body == (try String(contentsOfFile: workspace.hunts + "/basemap.json", encoding: .utf8)))
        let etag = try #require(answer.headers["etag"])
        #expect(try await server.call("GET", "/v1/basemap", headers: ["If-None-Match": etag]).status == 304)
        let streets = try Self.kinds(workspace.hunts + "/basemap.json")["street"] ?? 0
        try WebAppBrowserTests().browserScript(
            "basemap_test.py", checks: "basemap", server: server, workspace: workspace,
            environment: ["VSH_STREETS=\(min(streets, 20))"])
    }

    /// Two stops in Vaduz's old town.
    static let vaduz = """
        {"type": "FeatureCollection",
         "hunt": {"id": "vaduz-town", "name": "Vaduz old town", "description": "The Städtle on foot.",
                  "difficulty": "easy", "bonus_points": 20, "ordered": false, "timezone": "Europe/Vaduz"},
         "features": [
          {"type": "Feature", "id": "vaduz-rathausplatz", "properties": {"name": "Rathausplatz", "points": 20},
           "geometry": {"type": "Polygon", "coordinates": [[[9.5205, 47.1402], [9.5212, 47.1402],
             [9.5212, 47.1407], [9.5205, 47.1407], [9.5205, 47.1402]]]}},
          {"type": "Feature", "id": "vaduz-landesmuseum", "properties": {"name": "Landesmuseum", "points": 20},
           "geometry": {"type": "Polygon", "coordinates": [[[9.5218, 47.1383], [9.5225, 47.1383],
             [9.5225, 47.1388], [9.5218, 47.1388], [9.5218, 47.1383]]]}}
         ]}
        """
}
