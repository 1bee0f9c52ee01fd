import Foundation
import Testing
import VSHCore
import VSHGeodesy
import VSHHost
import VSHPostGIS
import VSHSpatiaLite
import VSHTestSupport

/// The hunt store's geometry on both adapters, the same test functions: sync, lookups on
/// boundaries and in holes (against shapely), the geodesic nearest stop, hunts read back.
@Suite struct HuntStoreTests {
    enum Backend: String, CaseIterable, Sendable {
        case spatiaLite, postGIS

        func open() async throws -> any LeagueStore {
            switch self {
            case .postGIS:
                return try await PostGISStore(
                    url: try PostgresCluster.shared().database(),
                    connectionWait: PostgresCluster.connectionWait)
            case .spatiaLite:
                return try SpatiaLiteStore(
                    path: TestSupport.temporaryDirectory("vsh-store").appendingPathComponent("vsh.sqlite")
                        .path)
            }
        }

        /// Two stores on one database, as two processes see one league (`vsh sync` while
        /// `vsh serve` runs, or two instances).
        func openTwo() async throws -> [any LeagueStore] {
            switch self {
            case .postGIS:
                let url = try PostgresCluster.shared().database()
                return [
                    try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait),
                    try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait),
                ]
            case .spatiaLite:
                let path = try TestSupport.temporaryDirectory("vsh-store").appendingPathComponent(
                    "vsh.sqlite"
                ).path
                return [try SpatiaLiteStore(path: path), try SpatiaLiteStore(path: path)]
            }
        }

        /// Replaces the definitions through `store`.
        func replace(_ store: any LeagueStore, with catalog: HuntCatalog) async throws {
            if let store = store as? SpatiaLiteStore { try await store.replace(with: catalog) }
            if let store = store as? PostGISStore { try await store.replace(with: catalog) }
        }
    }

    /// Every point-in-polygon fixture of the corpus (40 predicate fixtures, 7
    /// cases on 2 polygons with holes) answered by the real SpatiaLite lookup,
    /// boundary-inclusive, against shapely's `covers` (reference/pip.json).
    @Test(.needsCorpus, arguments: Backend.allCases) func pointInPolygonFixturesMatchShapelyCovers(
        _ backend: Backend
    )
        async throws
    {
        let store = try await backend.open()
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
            let inside = try await store.stops(covering: question.point, inHunt: nil).contains {
                $0.stopID == question.stop
            }
            #expect(inside == question.expected, "\(question.file) at \(question.point)")
            // SpatiaLite's own answer (GEOS), which the store's lookup defers to near an edge, too.
            if let spatiaLite = store as? SpatiaLiteStore {
                let geos = try await spatiaLite.spatiaLiteStops(covering: question.point).contains {
                    $0.stopID == question.stop
                }
                #expect(geos == question.expected, "SpatiaLite: \(question.file) at \(question.point)")
            }
        }
    }

    @Test(arguments: Backend.allCases) func boundaryVertexAndHoleBehaviour(_ backend: Backend) async throws {
        let store = try await backend.open()
        let shell = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0), (0.0, 0.0)].map {
            Coordinate(unchecked: $0.0, $0.1)
        }
        let hole = [(4.0, 4.0), (6.0, 4.0), (6.0, 6.0), (4.0, 6.0), (4.0, 4.0)].map {
            Coordinate(unchecked: $0.0, $0.1)
        }
        let fence = Geofence(Polygon(shell: try LinearRing(shell), holes: [try LinearRing(hole, index: 1)]))
        try await store.replace(with: catalog(stops: [("donut", fence)]))
        func inside(_ lat: Double, _ lon: Double) async throws -> Bool {
            try await !store.stops(covering: Coordinate(unchecked: lat, lon), inHunt: nil).isEmpty
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
    @Test(arguments: Backend.allCases) func nearestDistanceIsGeodesicToTheBoundary(_ backend: Backend)
        async throws
    {
        let store = try await backend.open()
        let slanted = try LinearRing([
            Coordinate(unchecked: 36.1000, -115.1700), Coordinate(unchecked: 36.1010, -115.1650),
            Coordinate(unchecked: 36.1040, -115.1660), Coordinate(unchecked: 36.1000, -115.1700),
        ])
        try await store.replace(with: catalog(stops: [("slanted", Geofence(Polygon(shell: slanted)))]))
        for point in [
            Coordinate(unchecked: 36.0990, -115.1660), Coordinate(unchecked: 36.1050, -115.1720),
            Coordinate(unchecked: 36.0500, -115.2500),
        ] {
            let nearest = try #require(try await store.nearestStop(to: point, inHunt: nil))
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

    @Test(arguments: Backend.allCases) func nearestFindsAStopFarAway(_ backend: Backend) async throws {
        let store = try await backend.open()
        try await store.replace(with: catalog(stops: [("far", try square(-33.9, 151.2, halfDegrees: 0.001))]))
        let nearest = try #require(
            try await store.nearestStop(to: Coordinate(unchecked: 36.1, -115.17), inHunt: nil))
        #expect(nearest.stop.stopID == "far")
        #expect(nearest.distanceMeters > 12_000_000 && nearest.distanceMeters < 13_000_000)
    }

    @Test(arguments: Backend.allCases) func syncIsAtomicAndSkipsUnchangedFiles(_ backend: Backend)
        async throws
    {
        let store = try await backend.open()
        let hunts = TestSupport.packageRoot.appendingPathComponent("hunts").path
        let sources = try HuntSources.read(directory: hunts)
        #expect(try await store.sync(sources, badges: nil) == .updated(hunts: 2, stops: 17))
        #expect(try await store.sync(sources, badges: nil) == .unchanged)

        var broken = sources
        broken[0].bytes = Array(
            String(decoding: broken[0].bytes, as: UTF8.self)
                .replacingOccurrences(of: #""points": 50"#, with: #""points": "fifty""#).utf8)
        await #expect(throws: HuntFileErrors.self) { try await store.sync(broken, badges: nil) }
        #expect(try await store.hunts().map(\.hunt.id) == ["downtown-fremont", "strip-classics"])
        #expect(try await store.hunt(id: "strip-classics")?.hunt.stops.count == 10)

        let onlyDowntown = sources.filter { $0.expectedID == "downtown-fremont" }
        #expect(try await store.sync(onlyDowntown, badges: nil) == .updated(hunts: 1, stops: 7))
        #expect(
            try await store.stops(covering: Coordinate(unchecked: 36.082014, -115.172734), inHunt: nil)
                .isEmpty)
    }

    /// The files of the last sync are kept byte for byte (what `vsh hunts export` writes back), on
    /// every backend; a sync of other files replaces them, a catalog from elsewhere has none.
    @Test(arguments: AccountStoreTests.Backend.allCases) func theFilesOfTheLastSyncAreKept(
        _ backend: AccountStoreTests.Backend
    ) async throws {
        let store = try await AccountStoreTests().store(backend)
        #expect(try await store.publishedFiles().isEmpty)
        let folder = TestSupport.packageRoot.appendingPathComponent("hunts").path
        let sources = try HuntSources.read(directory: folder)
        let badges = try #require(try HuntSources.readBadges(directory: folder))
        _ = try await store.sync(sources, badges: badges)
        let files = try await store.publishedFiles()
        #expect(files.map(\.name) == ["downtown-fremont.geojson", "strip-classics.geojson", "badges.json"])
        #expect(files.map(\.bytes) == sources.map(\.bytes) + [badges.bytes])
        #expect(try await store.badgeDefinitions().map(\.id).first == "first-roll")
        #expect(try await store.badgeDefinitions().count == 11)
        _ = try await store.sync(Array(sources.prefix(1)), badges: nil)
        #expect(try await store.publishedFiles().map(\.name) == ["downtown-fremont.geojson"])
        #expect(try await store.badgeDefinitions().isEmpty)
        try await store.replace(with: HuntCatalog(hunts: []))
        #expect(try await store.publishedFiles().isEmpty)
    }

    /// A folder sync records the folder's stat signature after the definitions: when it is killed
    /// in between, the next sync of the old folder must read its files, not trust the signature the
    /// old definitions left (found by `CrashTests`: a database kept the other folder's stops).
    @Test(arguments: Backend.allCases) func aSyncKilledBeforeItsSignatureDoesNotStick(_ backend: Backend)
        async throws
    {
        let store = try await backend.open()
        let both = TestSupport.packageRoot.appendingPathComponent("hunts").path
        let sources = try HuntSources.read(directory: both)
        #expect(try await store.sync(directory: both) == .updated(hunts: 2, stops: 17))
        #expect(try await store.sync(directory: both) == .unchanged)
        // Another folder's definitions land, and the process dies before it records that folder's
        // signature: the state `sync(directory:)` leaves between its two writes.
        let onlyDowntown = sources.filter { $0.expectedID == "downtown-fremont" }
        #expect(try await store.sync(onlyDowntown, badges: nil) == .updated(hunts: 1, stops: 7))
        #expect(try await store.sync(directory: both) == .updated(hunts: 2, stops: 17))
        #expect(try await store.hunts().count == 2)
    }

    @Test(arguments: Backend.allCases) func storedHuntsReadBackAsDefined(_ backend: Backend) async throws {
        let store = try await backend.open()
        let sources = try HuntSources.read(
            directory: TestSupport.packageRoot.appendingPathComponent("hunts").path)
        try await store.sync(sources, badges: nil)
        let fileHunts = try HuntCatalog.build(sources, inspector: try SpatiaLiteInspector.standalone()).get()
            .hunts
        let stored = try await store.hunts().map(\.hunt)
        #expect(stored == fileHunts)
        let areas = try #require(try await store.hunt(id: "strip-classics")).stopAreas
        let sphere = try #require(fileHunts[1].stops.first { $0.id == "sphere" })
        #expect(abs(areas["sphere"]! - Geodesic.areaSquareMeters(of: sphere.geofence)) < 0.5)

        // Names in other languages are kept, the hunt's and each stop's.
        var hunt = catalog(stops: [("plaza", try square(36.05, -115.08, halfDegrees: 0.0002))]).hunts[0]
        hunt.translations = [
            "es": Translation(name: "Prueba", description: "Una parada."),
            "pt-BR": Translation(name: "Teste"),
        ]
        hunt.stops[0].translations = ["es": Translation(name: "La plaza")]
        let translated = HuntCatalog(hunts: [hunt])
        try await store.replace(with: translated)
        #expect(try await store.hunts().map(\.hunt) == translated.hunts)
    }

    /// On PostGIS, a covering lookup among thousands of stops is answered through the GiST index.
    @Test func postGISCoveringLookupsGoThroughTheGiSTIndex() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.database()
        let store = try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait)
        var stops: [(id: String, geofence: Geofence)] = []
        for i in 0..<3000 {
            stops.append(
                (
                    "s\(i)",
                    try square(36 + Double(i % 60) * 0.01, -115 - Double(i / 60) * 0.01, halfDegrees: 0.002)
                ))
        }
        try await store.replace(with: catalog(stops: stops))
        #expect(
            try await store.stops(covering: Coordinate(unchecked: 36.01, -115.0), inHunt: nil).map(\.stopID)
                == ["s1"])
        let name = String(url.split(separator: "/").last!)
        _ = try cluster.psql(name, "ANALYZE stops")
        let plan = try cluster.psql(
            name,
            "EXPLAIN SELECT id FROM stops s WHERE ST_Covers(s.geom, ST_SetSRID(ST_MakePoint(-115.0, 36.01), 4326))"
        )
        #expect(plan.status == 0)
        #expect(plan.stdout.contains("stops_geom"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("Seq Scan"), "\(plan.stdout)")
    }
}

extension HuntStoreTests {
    /// Hunts are kept decoded between calls (SpatiaLite's `HuntCache`, PostGIS's `storedHunts`): what `hunts()` and `hunt(id:)` answer
    /// follows every change of the definitions, made through this store or through another one
    /// on the same file (a `vsh sync` while `vsh serve` runs).
    @Test(arguments: Backend.allCases) func keptHuntsFollowEveryChangeOfTheDefinitions(_ backend: Backend)
        async throws
    {
        func square(_ lat: Double) -> Geofence {
            Geofence(
                Polygon(
                    shell: try! LinearRing([
                        Coordinate(unchecked: lat, 0), Coordinate(unchecked: lat, 0.001),
                        Coordinate(unchecked: lat + 0.001, 0.001), Coordinate(unchecked: lat + 0.001, 0),
                        Coordinate(unchecked: lat, 0),
                    ])))
        }
        func catalog(_ version: Int) -> HuntCatalog {
            HuntCatalog(
                hunts: (0..<(4 - version)).map { h in
                    Hunt(
                        id: "hunt-\(h)", name: "Hunt \(h) v\(version)",
                        stops: (0..<3).map { k in
                            Stop(
                                id: "s\(h)-\(k)", huntID: "hunt-\(h)", name: "Stop \(k) v\(version)",
                                points: 10 * (version + 1), geofence: square(Double(h * 3 + k) / 100))
                        })
                })
        }
        func expectVersion(_ version: Int, in store: any LeagueStore) async throws {
            let all = try await store.hunts()
            #expect(all.map(\.hunt.id) == (0..<(4 - version)).map { "hunt-\($0)" })
            for h in 0..<4 {
                let one = try await store.hunt(id: "hunt-\(h)")
                if h < 4 - version {
                    #expect(one?.hunt.name == "Hunt \(h) v\(version)")
                    #expect(one?.hunt.stops.map(\.name) == (0..<3).map { "Stop \($0) v\(version)" })
                    let points = 10 * (version + 1)
                    #expect(one?.hunt.stops.map(\.points) == [points, points, points])
                } else {
                    #expect(one == nil, "hunt-\(h) is gone in version \(version)")
                }
            }
        }
        let stores = try await backend.openTwo()
        for version in 0..<3 {
            // Through one store, then through the other: each store asks twice (the second
            // answer is the kept one) and sees the other's change.
            try await backend.replace(stores[version % 2], with: catalog(version))
            for reader in stores {
                try await expectVersion(version, in: reader)
                try await expectVersion(version, in: reader)
            }
        }
    }
}
