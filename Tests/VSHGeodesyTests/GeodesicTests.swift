import Foundation
import Testing
import VSHCore
import VSHGeodesy
import VSHTestSupport

@Suite struct GeodesicTests {
    /// GeographicLib's documented example: JFK to LHR (GeodSolve -i 40.6 -73.8 51.6 -0.5).
    @Test func matchesGeographicLibsWorkedExample() {
        let result = Geodesic.inverse(Coordinate(unchecked: 40.6, -73.8), Coordinate(unchecked: 51.6, -0.5))
        #expect(abs(result.distanceMeters - 5_551_759.400_319) < 1e-3)
        #expect(abs(result.initialAzimuth - 51.198_882_845) < 1e-8)
        #expect(abs(result.finalAzimuth - 107.821_776_736) < 1e-8)
    }

    /// The local formula for nearby points against Karney's, on random segments
    /// up to 0.1° long across latitudes (and across the antimeridian).
    @Test func shortDistancesAgreeWithKarney() {
        var state: UInt64 = 99
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<20_000 {
            let a = Coordinate(unchecked: -80 + next() * 160, -180 + next() * 360)
            let scale = [1e-6, 1e-4, 1e-3, 0.099][Int(next() * 4)]
            let b = Coordinate(
                unchecked: max(-90, min(90, a.latitude + (next() - 0.5) * scale)),
                max(-180, min(180, a.longitude + (next() - 0.5) * scale)))
            let karney = Geodesic.distanceMeters(a, b)
            let local = Geodesic.shortDistanceMeters(a, b)
            #expect(abs(local - karney) <= 1e-6 * karney + 1e-9, "\(a) \(b): \(local) vs \(karney)")
        }
        let west = Coordinate(unchecked: 10, 179.9999)
        let east = Coordinate(unchecked: 10, -179.9999)
        #expect(abs(Geodesic.shortDistanceMeters(west, east) - Geodesic.distanceMeters(west, east)) < 1e-6)
    }

    /// The distance to a nearby segment without PROJ against Karney's golden-section search, on
    /// random positions and edges up to 0.1° across latitudes (and across the antimeridian):
    /// within 1e-4 of the distance (and the search's millimetre) whenever it answers, and it
    /// answers for the most part; when it does not, `distanceMeters` is Karney's.
    @Test func nearbySegmentDistancesAgreeWithKarney() {
        var state: UInt64 = 7
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        func near(_ c: Coordinate, _ scale: Double) -> Coordinate {
            var longitude = c.longitude + (next() - 0.5) * scale
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            return Coordinate(unchecked: max(-90, min(90, c.latitude + (next() - 0.5) * scale)), longitude)
        }
        var answered = 0
        let cases = 4_000
        for i in 0..<cases {
            let p = Coordinate(unchecked: -84 + next() * 168, i % 10 == 0 ? 179.97 : -180 + next() * 360)
            let scale = [1e-4, 1e-3, 0.01, 0.099][Int(next() * 4)]
            let a = near(p, scale)
            let b = near(p, scale)
            let karney = Geodesic.karneyDistanceMeters(from: p, toSegment: a, b)
            let combined = Geodesic.distanceMeters(from: p, toSegment: a, b)
            if let local = Geodesic.localDistanceMeters(from: p, toSegment: a, b) {
                answered += 1
                #expect(abs(local - karney) <= 1e-4 * karney + 2e-3, "\(p) \(a) \(b): \(local) vs \(karney)")
                #expect(combined == local)
            } else {
                #expect(combined == karney)
            }
        }
        #expect(answered > cases / 2, "\(answered) of \(cases)")
        // Far apart, or near a pole: Karney's.
        let sign = Coordinate(unchecked: 36.082014, -115.172734)
        #expect(
            Geodesic.localDistanceMeters(
                from: sign, toSegment: Coordinate(unchecked: 36.3, -115.2),
                Coordinate(unchecked: 36.3, -115.1))
                == nil)
        #expect(
            Geodesic.localDistanceMeters(
                from: Coordinate(unchecked: 88, 0), toSegment: Coordinate(unchecked: 88.01, 0),
                Coordinate(unchecked: 88.01, 0.05)) == nil)
    }

    @Test func destinationInvertsInverse() {
        let start = Coordinate(unchecked: 36.082014, -115.172734)
        let end = Geodesic.destination(from: start, azimuth: 33, distanceMeters: 1_234.5)
        let back = Geodesic.inverse(start, end)
        #expect(abs(back.distanceMeters - 1_234.5) < 1e-6)
        #expect(abs(back.initialAzimuth - 33) < 1e-9)
    }

    @Test func areaOfAOneDegreeCellAtTheEquator() throws {
        // 1° x 1° at the equator on WGS84: 12,308,778,361 m² (GeographicLib Planimeter).
        let ring = try LinearRing([
            Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 1), Coordinate(unchecked: 1, 1),
            Coordinate(unchecked: 1, 0), Coordinate(unchecked: 0, 0),
        ])
        #expect(abs(Geodesic.areaSquareMeters(of: ring) - 12_308_778_361) < 1_000)
    }

    /// Track lengths of the real GPX files in the corpus against pyproj's
    /// `Geod(ellps='WGS84').inv` sums (reference/gpx.json, length_2d_geodesic_m).
    @Test(.needsCorpus) func trackLengthsAgreeWithPyproj() throws {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let reference = try JSONValue.parse(
            [UInt8](Data(contentsOf: corpus.appendingPathComponent("reference/gpx.json"))))
        guard case .object(let root) = reference, case .object(let files)? = root["files"] else {
            Issue.record("unexpected gpx.json layout")
            return
        }
        let trkpt = try Regex(
            #"<trkpt\s+(?:lat="([-0-9.]+)"\s+lon="([-0-9.]+)"|lon="([-0-9.]+)"\s+lat="([-0-9.]+)")"#)
        var checked = 0
        for (name, value) in files.members {
            guard case .object(let facts) = value, facts["segments"] == .int(1), facts["tracks"] == .int(1),
                case .number(let expected, _)? = facts["length_2d_geodesic_m"], expected > 0
            else { continue }
            let text = try String(contentsOf: corpus.appendingPathComponent(name), encoding: .utf8)
            let points = text.matches(of: trkpt).compactMap { match -> Coordinate? in
                let lat = match.output[1].substring ?? match.output[4].substring
                let lon = match.output[2].substring ?? match.output[3].substring
                guard let lat, let lon, let la = Double(lat), let lo = Double(lon) else { return nil }
                return try? Coordinate(latitude: la, longitude: lo)
            }
            guard case .number(let count, _)? = facts["track_points"], points.count == Int(count) else {
                continue
            }
            let length = zip(points, points.dropFirst()).reduce(0) {
                $0 + Geodesic.distanceMeters($1.0, $1.1)
            }
            #expect(abs(length - expected) <= 1e-6 * expected + 1e-6, "\(name): \(length) vs \(expected)")
            checked += 1
        }
        #expect(checked >= 5, "too few single-segment tracks compared: \(checked)")
    }
}
