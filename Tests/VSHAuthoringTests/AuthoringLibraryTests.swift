import Foundation
import Testing
import VSHAuthoring
import VSHCore
import VSHGeodesy
import VSHSpatiaLite
import VSHTestSupport

/// vsh-master's library, called directly (the end-to-end tests drive the binary).
@Suite struct AuthoringLibraryTests {
    /// Every vertex of a circle stop is on the geodesic circle (to the 7 decimals hunt files keep).
    @Test func circleVerticesAreOnTheGeodesicCircle() throws {
        let center = Coordinate(unchecked: 36.1126, -115.1767)
        let fence = try StopGeometry.circle(center: center, radiusMeters: 60, vertices: 24)
        let ring = try #require(fence.polygons.first?.shell.positions)
        #expect(ring.count == 25)
        #expect(ring.first == ring.last)
        for vertex in ring {
            #expect(abs(Geodesic.distanceMeters(center, vertex) - 60) < 0.02, "\(vertex)")
        }
        // Counterclockwise, as RFC 7946 asks of shells.
        #expect(try #require(fence.polygons.first).shell.signedAreaDegrees > 0)
        #expect(throws: AuthoringError.radiusOutOfRange) {
            try StopGeometry.circle(center: center, radiusMeters: 0.5)
        }
    }

    @Test func slugsAreLowerCaseWordsJoinedByHyphens() {
        #expect(HuntImport.slug("Fremont Street Experience!") == "fremont-street-experience")
        #expect(HuntImport.slug("  Café del Mar  ") == "cafe-del-mar")
        #expect(HuntImport.slug("***") == "")
    }

    /// Saving writes only a folder that validates: a broken change leaves the files as they were.
    @Test func aHuntFolderSavesOnlyValidChanges() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-authoring")
        defer { TestSupport.remove(folder) }
        for name in ["strip-classics.geojson", "downtown-fremont.geojson", "badges.json"] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent("hunts/\(name)"),
                to: folder.appendingPathComponent(name))
        }
        let inspector = try SpatiaLiteInspector.standalone()
        let hunts = try HuntFolder(directory: folder.path, inspector: inspector)
        var downtown = try hunts.hunt("downtown-fremont")
        downtown.bonusPoints = 175
        try hunts.save([downtown])
        #expect(
            try HuntFolder(directory: folder.path, inspector: inspector).hunt("downtown-fremont").bonusPoints
                == 175)

        let before = try Data(contentsOf: folder.appendingPathComponent("strip-classics.geojson"))
        var clash = try hunts.hunt("strip-classics")
        clash.stops[0].id = "mob-museum"  // a stop id Downtown already has
        #expect(throws: HuntFileErrors.self) { try hunts.save([clash]) }
        #expect(try Data(contentsOf: folder.appendingPathComponent("strip-classics.geojson")) == before)
        #expect(
            throws: AuthoringError.unknownHunt(
                id: "atlantis", folder: folder.path, known: ["downtown-fremont", "strip-classics"])
        ) { try hunts.hunt("atlantis") }
    }
}
