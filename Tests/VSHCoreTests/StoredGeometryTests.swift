import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// The store's fast geometry reader gives exactly what the JSON path gives, or nil.
@Suite struct StoredGeometryTests {
    /// Every geometry of the shipped hunts, the corpus point-in-polygon fixtures and the
    /// hostile fixtures, written compactly as the store keeps them, and pretty-printed.
    @Test func theFastReaderAgreesWithTheJSONPathOnRealGeometries() throws {
        var files = ["hunts/strip-classics.geojson", "hunts/downtown-fremont.geojson"].map {
            TestSupport.packageRoot.appendingPathComponent($0)
        }
        let corpus = try #require(TestSupport.corpus)
        files += try FileManager.default.contentsOfDirectory(
            atPath: corpus.appendingPathComponent("pip").path
        )
        .filter { $0.hasSuffix(".geojson") }.map { corpus.appendingPathComponent("pip/\($0)") }
        var geometries: [JSONValue] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let object):
                if case .string(let type)? = object["type"], type == "Polygon" || type == "MultiPolygon",
                    object["coordinates"] != nil
                {
                    geometries.append(
                        .object(["type": .string(type), "coordinates": object["coordinates"]!]))
                }
                object.members.map(\.value).forEach(collect)
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        for file in files { collect(try JSONValue.parse([UInt8](try Data(contentsOf: file)))) }
        #expect(geometries.count >= 30)
        var compared = 0
        for geometry in geometries {
            guard let general = try? HuntFile.geofence(from: geometry) else { continue }
            for text in [
                geometry.compactText, geometry.compactText.replacingOccurrences(of: ",", with: ", "),
            ] {
                #expect(HuntFile.storedGeofence(text) == general, "\(text.prefix(120))")
            }
            compared += 1
        }
        #expect(compared >= 20)
    }

    @Test func anythingButThePlainShapesIsLeftToTheJSONPath() {
        let ring = "[[-115.17,36.08],[-115.16,36.08],[-115.16,36.09],[-115.17,36.08]]"
        #expect(HuntFile.storedGeofence(#"{"type":"Polygon","coordinates":[\#(ring)]}"#) != nil)
        #expect(
            HuntFile.storedGeofence(#"{"type":"MultiPolygon","coordinates":[[\#(ring)],[\#(ring)]]}"#)?
                .polygons.count == 2)
        #expect(
            HuntFile.storedGeofence(
                #"{"type":"Polygon","coordinates":[[[-115.17,36.08,600],[-115.16,36.08,600],[-115.16,36.09,0],[-115.17,36.08,1]]]}"#
            ) != nil)
        for bad in [
            #"{"type":"Point","coordinates":[-115.17,36.08]}"#,
            #"{"coordinates":[\#(ring)],"type":"Polygon"}"#,
            #"{"type":"Polygon","coordinates":[\#(ring)]} trailing"#,
            #"{"type":"Polygon","coordinates":[[[0x1p3,36.08],[-115.16,36.08],[-115.16,36.09],[0x1p3,36.08]]]}"#,
            #"{"type":"Polygon","coordinates":[[[NaN,36.08],[-115.16,36.08],[-115.16,36.09],[NaN,36.08]]]}"#,
            #"{"type":"Polygon","coordinates":[[[-115.17,200],[-115.16,36.08],[-115.16,36.09],[-115.17,200]]]}"#,
            #"{"type":"Polygon","coordinates":[[[-115.17,36.08],[-115.16,36.08],[-115.16,36.09]]]}"#,
            #"{"type":"Polygon","coordinates":[]}"#,
            "",
        ] {
            #expect(HuntFile.storedGeofence(bad) == nil, "\(bad)")
        }
    }
}
