import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

@Suite struct GeofenceIndexTests {
    /// The index compiled straight from the stored binary geofences is the one compiled from the
    /// stops read back (every array equal), for all the hunts and for one, in catalog order; a
    /// row whose binary form is damaged sends the whole compilation the general way.
    @Test func theIndexFromStoredBytesIsTheIndexFromStops() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-index")
        let path = folder.appendingPathComponent("world.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        let stops = syntheticStops(count: 1_500, seed: 9)
        try await store.replace(
            with: HuntCatalog(hunts: [
                Hunt(id: "b-world", name: "B", stops: Array(stops.prefix(900))),
                Hunt(
                    id: "a-world", name: "A",
                    stops: stops.dropFirst(900).map {
                        var s = $0
                        s.huntID = "a-world"
                        return s
                    }),
            ]))
        let general = GeofenceIndex(stops: try await store.hunts().flatMap(\.hunt.stops))
        let direct = try await store.compiledIndex()
        #expect(direct.entries.count == 1_500)
        #expect(direct.entries.first?.huntID == "b-world")  // catalog order, not by id
        #expect(direct == general)
        // The builder fed the stored bytes directly gives the index of the stops themselves.
        var builder = GeofenceIndex.Builder()
        for stop in stops.prefix(900) {
            let bytes = HuntFile.storedBytes(stop.geofence)
            let added = bytes.withUnsafeBytes {
                builder.add(huntID: stop.huntID, stopID: stop.id, name: stop.name, storedBytes: $0)
            }
            #expect(added)
        }
        let refused = builder.add(
            huntID: "x", stopID: "x", name: "x", storedBytes: UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(!refused)
        #expect(GeofenceIndex(builder) == GeofenceIndex(stops: Array(stops.prefix(900))))
        // Room reserved after 1,024 stops for as many as expected (right, too few, too many)
        // changes nothing.
        for expected in [1_500, 1_100, 6_000] {
            var reserving = GeofenceIndex.Builder(expectedStops: expected)
            for stop in stops {
                _ = HuntFile.storedBytes(stop.geofence).withUnsafeBytes {
                    reserving.add(huntID: stop.huntID, stopID: stop.id, name: stop.name, storedBytes: $0)
                }
            }
            #expect(GeofenceIndex(reserving) == GeofenceIndex(stops: stops), "expected \(expected)")
        }
        let one = try await store.compiledIndex(huntID: "a-world")
        #expect(one.entries.count == 600)
        #expect(one == GeofenceIndex(stops: try #require(try await store.hunt(id: "a-world")).hunt.stops))
        let damaged = try TestSupport.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE stops SET geometry_bin = x'00' WHERE id = 's5'\"); c.commit()",
                path,
            ])
        #expect(damaged.status == 0, "\(damaged.stderr)")
        #expect(try await SpatiaLiteStore(path: path).compiledIndex() == general)
    }

    /// The writer's covering lookup (every stop's geofence compiled once for the definitions and
    /// kept between transactions) answers as SpatiaLite does, for all hunts and for each; after a
    /// sync that moves, renames and drops stops, it answers as SpatiaLite does for the new ones.
    @Test func theWritersKeptIndexAnswersAsSpatiaLiteAcrossDefinitions() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-index")
        let store = try SpatiaLiteStore(path: folder.appendingPathComponent("world.sqlite").path)
        func catalog(_ stops: [Stop]) -> HuntCatalog { twoHuntCatalog(stops) }
        let first = syntheticStops(count: 600, seed: 5)
        // The second definitions: the first 500 stops 30 m north and renamed, the rest dropped.
        let second = first.prefix(500).map { stop -> Stop in
            let moved = stop.geofence.polygons.map { polygon in
                func shift(_ ring: LinearRing) -> LinearRing {
                    try! LinearRing(
                        ring.positions.map { Coordinate(unchecked: $0.latitude + 0.00027, $0.longitude) })
                }
                return Polygon(shell: shift(polygon.shell), holes: polygon.holes.map(shift))
            }
            return Stop(
                id: "t" + stop.id.dropFirst(), huntID: stop.huntID, name: stop.name, points: 1,
                geofence: Geofence(moved[0]))
        }
        // Near each stop: a vertex, a point between it and the next-but-one, and two at random.
        var random = SplitMix64(seed: 11)
        var fixes: [Coordinate] = []
        for stop in first {
            let ring = stop.geofence.polygons[0].shell.positions
            let (a, b) = (ring[0], ring[2])
            fixes.append(a)
            fixes.append(
                Coordinate(unchecked: (a.latitude + b.latitude) / 2, (a.longitude + b.longitude) / 2))
            for _ in 0..<2 {
                fixes.append(
                    Coordinate(
                        unchecked: a.latitude + (random.unit() - 0.5) * 0.002,
                        a.longitude + (random.unit() - 0.5) * 0.002))
            }
        }
        let (perceptual, cache, positions) = (store.perceptual, store.huntCache, fixes)
        func writersAnswers(_ hunt: String?) async throws -> [[StopReference]] {
            try await store.write { db in
                let history = TransactionHistory(db, perceptual: perceptual, huntCache: cache)
                return try positions.map { try history.stops(covering: $0, inHunt: hunt) }
            }
        }
        var answers: [[String]] = []
        for stops in [first, second] {
            try await store.replace(with: catalog(stops))
            var covered = 0
            for hunt in [nil, "a-world", "b-world"] {
                // Twice: the first transaction compiles the index, the second finds it kept.
                for _ in 0..<2 {
                    let ours = try await writersAnswers(hunt)
                    for (fix, answer) in zip(fixes, ours) {
                        let truth = try await store.spatiaLiteStops(covering: fix, inHunt: hunt)
                        #expect(answer == truth, "\(fix) in \(hunt ?? "every hunt")")
                        covered += truth.isEmpty ? 0 : 1
                    }
                    if hunt == nil { answers.append(ours.map { $0.map(\.stopID).joined(separator: ",") }) }
                }
            }
            #expect(covered > fixes.count / 2)
        }
        // The two definitions' answers differ (so an index kept across them would be caught).
        #expect(answers[0] == answers[1] && answers[2] == answers[3] && answers[1] != answers[2])
    }

    @Test func agreesWithSpatiaLiteOnEveryFixBoundariesIncluded() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-index")
        let store = try SpatiaLiteStore(path: folder.appendingPathComponent("world.sqlite").path)
        let stops = syntheticStops(count: 2_000, seed: 42)
        try await store.replace(with: HuntCatalog(hunts: [Hunt(id: "world", name: "World", stops: stops)]))
        let index = try await store.compiledIndex()
        var random = SplitMix64(seed: 7)
        var fixes: [Coordinate] = []
        for _ in 0..<12_000 {
            fixes.append(Coordinate(unchecked: 36.04 + random.unit() * 0.17, -115.26 + random.unit() * 0.17))
        }
        // The hard cases: vertices, edge midpoints, and points a hair to either side.
        for stop in stops.prefix(400) {
            let ring = stop.geofence.polygons[0].shell.positions
            let k = Int(random.unit() * Double(ring.count - 1))
            let a = ring[k]
            let b = ring[k + 1]
            fixes.append(a)
            fixes.append(
                Coordinate(unchecked: (a.latitude + b.latitude) / 2, (a.longitude + b.longitude) / 2))
            fixes.append(Coordinate(unchecked: a.latitude + 1e-12, a.longitude))
            fixes.append(Coordinate(unchecked: a.latitude, a.longitude - 1e-12))
            if let hole = stop.geofence.polygons[0].holes.first { fixes.append(hole.positions[0]) }
        }
        var undecided = 0
        var covered = 0
        for fix in fixes {
            let truth = try await store.spatiaLiteStops(covering: fix).map(\.stopID)
            // The store's own lookup (certified on the stored binary geofences, SpatiaLite near an
            // edge) answers as SpatiaLite does, undecided positions included.
            #expect(try await store.stops(covering: fix).map(\.stopID) == truth, "\(fix)")
            switch index.covering(latitude: fix.latitude, longitude: fix.longitude) {
            case .covered(let found):
                #expect(found.map { index.entries[$0].stopID } == truth, "\(fix)")
                covered += truth.isEmpty ? 0 : 1
            case .undecided:
                undecided += 1
            }
        }
        #expect(covered > 1_000)
        // Only points within rounding distance of an edge are left to SpatiaLite.
        #expect(undecided < fixes.count / 20, "\(undecided) of \(fixes.count) undecided")
    }

    @Test(.needsCorpus) func thePointInPolygonFixturesThroughTheIndex() async throws {
        let corpus = try #require(TestSupport.corpus)
        let reference = try JSONValue.parse(
            [UInt8](Data(contentsOf: corpus.appendingPathComponent("reference/pip.json"))))
        guard case .object(let root) = reference, case .array(let fixtures)? = root["predicate_fixtures"]
        else {
            Issue.record("pip.json has no predicate_fixtures")
            return
        }
        var checked = 0
        for (i, value) in fixtures.enumerated() {
            guard case .object(let f) = value, case .string(let file)? = f["file"],
                case .number(let featureIndex, _)? = f["polygon_feature_index"],
                case .bool(let expected)? = f["expected_inside_boundary_inclusive"],
                case .array(let xy)? = f["point"],
                case .number(let x, _) = xy[0], case .number(let y, _) = xy[1]
            else {
                Issue.record("fixture \(i) unreadable")
                continue
            }
            guard
                case .object(let doc) = try JSONValue.parse(
                    [UInt8](Data(contentsOf: corpus.appendingPathComponent(file)))),
                case .array(let features)? = doc["features"],
                case .object(let feature) = features[Int(featureIndex)]
            else {
                Issue.record("fixture \(i): \(file) has no feature \(featureIndex)")
                continue
            }
            let fence = try HuntFile.geofence(from: feature["geometry"] ?? .null)
            let index = GeofenceIndex(stops: [
                Stop(id: "f\(i)", huntID: "t", name: "f", points: 1, geofence: fence)
            ])
            #expect(index.covering(latitude: y, longitude: x) == .covered(expected ? [0] : []), "\(file)")
            checked += 1
        }
        // The corpus's 40 predicate fixtures (a loop over none would pass silently).
        #expect(checked == 40)
    }

    @Test func edgeCasesOfTheGrid() async throws {
        let square = Geofence(
            Polygon(
                shell: try! LinearRing([
                    Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 10), Coordinate(unchecked: 10, 10),
                    Coordinate(unchecked: 10, 0),
                    Coordinate(unchecked: 0, 0),
                ])))
        let index = GeofenceIndex(stops: [
            Stop(id: "sq", huntID: "t", name: "sq", points: 1, geofence: square)
        ])
        #expect(index.covering(latitude: 10, longitude: 10) == .covered([0]))  // the far corner of the extent
        #expect(index.covering(latitude: 5, longitude: 10) == .covered([0]))
        #expect(index.covering(latitude: 10.0000001, longitude: 5) == .covered([]))
        #expect(index.covering(latitude: .nan, longitude: 5) == .covered([]))
        #expect(GeofenceIndex(stops: []).covering(latitude: 1, longitude: 1) == .covered([]))
    }
}
