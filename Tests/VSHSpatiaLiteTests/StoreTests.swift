import Foundation
import Testing
import VSHCore
import VSHGeodesy
import VSHSpatiaLite
import VSHTestSupport

/// A hunt of one stop from a ring of (lat, lon) pairs, for building catalogs in code.
func catalog(stops: [(id: String, geofence: Geofence)]) -> HuntCatalog {
    HuntCatalog(hunts: [
        Hunt(
            id: "test", name: "Test",
            stops: stops.map {
                Stop(id: $0.id, huntID: "test", name: $0.id, points: 10, geofence: $0.geofence)
            })
    ])
}

func square(_ lat: Double, _ lon: Double, halfDegrees h: Double) throws -> Geofence {
    Geofence(
        Polygon(
            shell: try LinearRing([
                Coordinate(unchecked: lat - h, lon - h), Coordinate(unchecked: lat - h, lon + h),
                Coordinate(unchecked: lat + h, lon + h), Coordinate(unchecked: lat + h, lon - h),
                Coordinate(unchecked: lat - h, lon - h),
            ])))
}

@Suite struct StoreTests {
    let folder: URL
    let store: SpatiaLiteStore

    init() throws {
        folder = try TestSupport.temporaryDirectory("vsh-store")
        store = try SpatiaLiteStore(path: folder.appendingPathComponent("vsh.sqlite").path)
    }

    /// Every point-in-polygon fixture of the corpus (40 predicate fixtures, 7
    /// cases on 2 polygons with holes) answered by the real SpatiaLite lookup,
    /// boundary-inclusive, against shapely's `covers` (reference/pip.json).
    @Test func pointInPolygonFixturesMatchShapelyCovers() async throws {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let reference = try JSONValue.parse(
            [UInt8](Data(contentsOf: corpus.appendingPathComponent("reference/pip.json"))))
        guard case .object(let root) = reference, case .array(let fixtures)? = root["predicate_fixtures"],
            case .array(let cases)? = root["bpip_cases"]
        else {
            Issue.record("unexpected pip.json layout")
            return
        }

        // Load every fixture polygon as a stop; remember which point goes with which stop.
        var stops: [(id: String, geofence: Geofence)] = []
        var questions: [(stop: String, point: Coordinate, expected: Bool, file: String)] = []
        var files = Set<String>()
        func polygon(file: String, index: Int) throws -> Geofence {
            let document = try JSONValue.parse([UInt8](Data(contentsOf: corpus.appendingPathComponent(file))))
            guard case .object(let object) = document else { throw FixtureError("\(file): not an object") }
            if case .array(let features)? = object["features"], case .object(let feature) = features[index],
                let geometry = feature["geometry"]
            {
                return try HuntFile.geofence(from: geometry)
            }
            return try HuntFile.geofence(from: object["geometry"] ?? .null)
        }
        func point(_ value: JSONValue?) throws -> Coordinate {
            guard case .array(let xy)? = value, case .number(let lon, _) = xy[0],
                case .number(let lat, _) = xy[1]
            else { throw FixtureError("bad point") }
            return try Coordinate(latitude: lat, longitude: lon)
        }
        for (i, value) in fixtures.enumerated() {
            guard case .object(let fixture) = value, case .string(let file)? = fixture["file"],
                case .number(let index, _)? = fixture["polygon_feature_index"],
                case .bool(let expected)? = fixture["expected_inside_boundary_inclusive"]
            else {
                Issue.record("fixture \(i) unreadable")
                continue
            }
            let id = "fixture-\(i)"
            stops.append((id, try polygon(file: file, index: Int(index))))
            questions.append((id, try point(fixture["point"]), expected, file))
            files.insert(file)
        }
        var holeStops: [String: String] = [:]
        for (i, value) in cases.enumerated() {
            guard case .object(let fixture) = value, case .string(let file)? = fixture["polygon_file"],
                case .bool(let expected)? = fixture["shapely_covers"]
            else {
                Issue.record("case \(i) unreadable")
                continue
            }
            if holeStops[file] == nil {
                let id = "hole-\(holeStops.count)"
                holeStops[file] = id
                stops.append((id, try polygon(file: file, index: 0)))
            }
            questions.append((holeStops[file]!, try point(fixture["point"]), expected, file))
            files.insert(file)
        }
        #expect(files.count == 42)
        #expect(questions.count == 47)

        try await store.replace(with: catalog(stops: stops))
        for question in questions {
            let inside = try await store.stops(covering: question.point).contains {
                $0.stopID == question.stop
            }
            #expect(inside == question.expected, "\(question.file) at \(question.point)")
        }
    }

    @Test func boundaryVertexAndHoleBehaviour() async throws {
        let shell = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0), (0.0, 0.0)].map {
            Coordinate(unchecked: $0.0, $0.1)
        }
        let hole = [(4.0, 4.0), (6.0, 4.0), (6.0, 6.0), (4.0, 6.0), (4.0, 4.0)].map {
            Coordinate(unchecked: $0.0, $0.1)
        }
        let fence = Geofence(Polygon(shell: try LinearRing(shell), holes: [try LinearRing(hole, index: 1)]))
        try await store.replace(with: catalog(stops: [("donut", fence)]))
        func inside(_ lat: Double, _ lon: Double) async throws -> Bool {
            try await !store.stops(covering: Coordinate(unchecked: lat, lon)).isEmpty
        }
        #expect(try await inside(2, 2))  // interior
        #expect(try await inside(0, 5))  // on an edge
        #expect(try await inside(10, 10))  // on a vertex
        #expect(try await inside(0, 0))  // the closing vertex
        #expect(try await !inside(5, 5))  // in the hole
        #expect(try await inside(4, 5))  // on the hole's edge: boundary, so covered
        #expect(try await !inside(10.000001, 5))  // just outside
    }

    /// The nearest stop's distance is the geodesic distance to its boundary:
    /// checked against a brute-force minimum over the boundary densified every 5 cm.
    @Test func nearestDistanceIsGeodesicToTheBoundary() async throws {
        let slanted = try LinearRing([
            Coordinate(unchecked: 36.1000, -115.1700), Coordinate(unchecked: 36.1010, -115.1650),
            Coordinate(unchecked: 36.1040, -115.1660), Coordinate(unchecked: 36.1000, -115.1700),
        ])
        try await store.replace(with: catalog(stops: [("slanted", Geofence(Polygon(shell: slanted)))]))
        for point in [
            Coordinate(unchecked: 36.0990, -115.1660), Coordinate(unchecked: 36.1050, -115.1720),
            Coordinate(unchecked: 36.0500, -115.2500),
        ] {
            let nearest = try #require(try await store.nearestStop(to: point))
            var best = Double.infinity
            for (a, b) in zip(slanted.positions, slanted.positions.dropFirst()) {
                let edge = Geodesic.inverse(a, b)
                let steps = Int(edge.distanceMeters / 0.05)
                for step in 0...steps {
                    let p = Geodesic.destination(
                        from: a, azimuth: edge.initialAzimuth,
                        distanceMeters: edge.distanceMeters * Double(step) / Double(steps))
                    best = min(best, Geodesic.distanceMeters(point, p))
                }
            }
            #expect(abs(nearest.distanceMeters - best) / best < 0.005, "\(nearest.distanceMeters) vs \(best)")
            #expect(nearest.stop.stopID == "slanted")
        }
    }

    @Test func nearestFindsAStopFarAway() async throws {
        try await store.replace(with: catalog(stops: [("far", try square(-33.9, 151.2, halfDegrees: 0.001))]))
        let nearest = try #require(try await store.nearestStop(to: Coordinate(unchecked: 36.1, -115.17)))
        #expect(nearest.stop.stopID == "far")
        #expect(nearest.distanceMeters > 12_000_000 && nearest.distanceMeters < 13_000_000)
    }

    @Test func inspectorAsksGEOSAndTheEllipsoid() async throws {
        let bowtie = Geofence(
            Polygon(
                shell: try LinearRing([
                    Coordinate(unchecked: 0, 0), Coordinate(unchecked: 1, 1), Coordinate(unchecked: 0, 1),
                    Coordinate(unchecked: 1, 0), Coordinate(unchecked: 0, 0),
                ])))
        #expect(
            try store.inspector.inspect(bowtie).invalidReason
                == "self-intersection at longitude 0.5, latitude 0.5")
        let outsideHole = Geofence(
            Polygon(
                shell: try LinearRing([
                    Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 1), Coordinate(unchecked: 1, 1),
                    Coordinate(unchecked: 0, 0),
                ]),
                holes: [
                    try LinearRing([
                        Coordinate(unchecked: 5, 5), Coordinate(unchecked: 5, 6), Coordinate(unchecked: 6, 6),
                        Coordinate(unchecked: 5, 5),
                    ])
                ]))
        #expect(
            try store.inspector.inspect(outsideHole).invalidReason?.hasPrefix("hole lies outside shell")
                == true)
        let plaza = try square(36.12, -115.17, halfDegrees: 0.0005)
        let inspector = try SpatiaLiteInspector.standalone()
        #expect(try inspector.inspect(plaza).invalidReason == nil)
        // A 1° cell across the equator; GeographicLib's Planimeter says 12,309,234,582.5 m².
        // (SpatiaLite's ST_Area(g, 1) cannot measure a ring that crosses the equator.)
        let cell = try square(0, 0.5, halfDegrees: 0.5)
        #expect(abs(try inspector.inspect(cell).areaSquareMeters - 12_309_234_582.5) < 10)
    }

    @Test func syncIsAtomicAndSkipsUnchangedFiles() async throws {
        let hunts = TestSupport.packageRoot.appendingPathComponent("hunts").path
        let sources = try HuntSources.read(directory: hunts)
        #expect(try await store.sync(sources) == .updated(hunts: 2, stops: 17))
        #expect(try await store.sync(sources) == .unchanged)

        var broken = sources
        broken[0].bytes = Array(
            String(decoding: broken[0].bytes, as: UTF8.self)
                .replacingOccurrences(of: #""points": 50"#, with: #""points": "fifty""#).utf8)
        await #expect(throws: HuntFileErrors.self) { try await store.sync(broken) }
        #expect(try await store.hunts().map(\.hunt.id) == ["downtown-fremont", "strip-classics"])
        #expect(try await store.hunt(id: "strip-classics")?.hunt.stops.count == 10)

        let onlyDowntown = sources.filter { $0.expectedID == "downtown-fremont" }
        #expect(try await store.sync(onlyDowntown) == .updated(hunts: 1, stops: 7))
        #expect(try await store.stops(covering: Coordinate(unchecked: 36.082014, -115.172734)).isEmpty)
    }

    @Test func storedHuntsReadBackAsDefined() async throws {
        let sources = try HuntSources.read(
            directory: TestSupport.packageRoot.appendingPathComponent("hunts").path)
        try await store.sync(sources)
        let fileHunts = try HuntCatalog.build(sources, inspector: store.inspector).get().hunts
        let stored = try await store.hunts().map(\.hunt)
        #expect(stored == fileHunts)
        let areas = try #require(try await store.hunt(id: "strip-classics")).stopAreas
        let sphere = try #require(fileHunts[1].stops.first { $0.id == "sphere" })
        #expect(abs(areas["sphere"]! - Geodesic.areaSquareMeters(of: sphere.geofence)) < 0.5)
    }

    @Test func coveringLookupsGoThroughTheSpatialIndex() async throws {
        let plan = try await store.coveringQueryPlan()
        #expect(plan.contains { $0.hasPrefix("SCAN idx_stops_geom VIRTUAL TABLE INDEX") }, "\(plan)")
        #expect(!plan.contains { $0 == "SCAN s" }, "a full scan of stops: \(plan)")
    }

    @Test func theAuditTrailIsAppendOnly() async throws {
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: Date(timeIntervalSince1970: 0))
        let submission = Submission(
            player: ann.id,
            evidence: .device(
                position: Coordinate(unchecked: 36.1, -115.1), time: Date(timeIntervalSince1970: 100),
                accuracyMeters: 3),
            huntID: nil, receivedAt: Date(timeIntervalSince1970: 200))
        let recorded = try await store.record(submission, photoFile: nil) { _, _ in
            Decision(
                verdict: .rejected, rules: [RuleResult(.atStop, .failed, "not at a stop")], hunt: nil,
                stop: nil, points: 0, fix: nil)
        }
        #expect(recorded.id == 1)
        await #expect(throws: (any Error).self) {
            try await store.executeForTesting("UPDATE checkins SET verdict = 'accepted'")
        }
        await #expect(throws: (any Error).self) { try await store.executeForTesting("DELETE FROM checkins") }
        #expect(try await store.player(named: "ann")?.id == ann.id)
        #expect(try await store.player(named: "ANN")?.name == "Ann")
        let summary = try #require(try await store.players().first)
        #expect(summary.checkIns == 1)
        #expect(summary.points == 0)
    }

    /// Every commit is on disk when it returns (`synchronous = FULL`), however the store is opened:
    /// GRDB turns WAL on with NORMAL, which a power cut can undo.
    @Test func commitsAreDurableInBothConnectionModes() async throws {
        #expect(try await store.synchronousMode() == 2)
        let single = try SpatiaLiteStore(
            path: folder.appendingPathComponent("single.sqlite").path, connections: .single)
        #expect(try await single.synchronousMode() == 2)
    }

    @Test func notADatabaseIsADataError() async throws {
        let path = folder.appendingPathComponent("photo.jpg").path
        try Data(repeating: 0xFF, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SpatiaLiteStore(path: path)
        } throws: { error in
            (error as? StoreError)?.exitStatus == .dataError
        }
    }
}
