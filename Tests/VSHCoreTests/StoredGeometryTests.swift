import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// The store's fast geometry reader gives exactly what the JSON path gives, or nil.
@Suite struct StoredGeometryTests {
    /// Every geometry of the shipped hunts, the corpus point-in-polygon fixtures and the
    /// hostile fixtures, written compactly as the store keeps them, and pretty-printed.
    @Test(.needsCorpus) func theFastReaderAgreesWithTheJSONPathOnRealGeometries() throws {
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
            // The binary form gives back the same geofence, bit for bit.
            let bytes = HuntFile.storedBytes(general)
            #expect(bytes.withUnsafeBytes { HuntFile.storedGeofence(bytes: $0) } == general)
            compared += 1
        }
        #expect(compared >= 20)
    }

    /// Damaged binary geometry (cut short at every length, a count made larger, a trailing byte, a
    /// latitude out of range, an unclosed ring) reads as nothing, never as a crash or a fence.
    @Test func damagedBinaryGeometryReadsAsNothing() throws {
        let ring = try LinearRing(
            [
                Coordinate(unchecked: 36.08, -115.17), Coordinate(unchecked: 36.08, -115.16),
                Coordinate(unchecked: 36.09, -115.16), Coordinate(unchecked: 36.08, -115.17),
            ])
        let hole = try LinearRing(
            [
                Coordinate(unchecked: 36.081, -115.169), Coordinate(unchecked: 36.082, -115.165),
                Coordinate(unchecked: 36.083, -115.168), Coordinate(unchecked: 36.081, -115.169),
            ], index: 1)
        let fence = try Geofence(
            kind: .multiPolygon, polygons: [Polygon(shell: ring, holes: [hole]), Polygon(shell: ring)])
        let bytes = HuntFile.storedBytes(fence)
        #expect(bytes.count == 1 + 4 + (4 + 4 + 4 * 16 + 4 + 4 * 16) + (4 + 4 + 4 * 16))
        func read(_ bytes: [UInt8]) -> Geofence? {
            bytes.withUnsafeBytes { HuntFile.storedGeofence(bytes: $0) }
        }
        #expect(read(bytes) == fence)
        for length in 0..<bytes.count { #expect(read(Array(bytes.prefix(length))) == nil, "\(length) bytes") }
        #expect(read(bytes + [0]) == nil)
        var wrongKind = bytes
        wrongKind[0] = 0  // a Polygon with two polygons
        #expect(read(wrongKind) == nil)
        var huge = bytes
        huge[5] = 0xFF  // the first polygon's ring count
        #expect(read(huge) == nil)
        var outOfRange = bytes
        let latitude = 1 + 4 + 4 + 4 + 8  // the first position's latitude
        withUnsafeBytes(of: (91.0).bitPattern.littleEndian) {
            outOfRange.replaceSubrange(latitude..<latitude + 8, with: $0)
        }
        #expect(read(outOfRange) == nil)
        var unclosed = bytes
        withUnsafeBytes(of: (36.5).bitPattern.littleEndian) {
            unclosed.replaceSubrange(latitude..<latitude + 8, with: $0)
        }
        #expect(read(unclosed) == nil)
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
