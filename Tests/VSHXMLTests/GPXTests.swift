import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHTestSupport
import VSHXML

@Suite(.needsCorpus) struct GPXCorpusTests {
    /// Every corpus GPX file against gpxpy 1.6.2's answers (reference/gpx.json):
    /// counts, first and last point, elevation extremes, time bounds, and the
    /// length within 0.1 % of the WGS84 geodesic sum (pyproj).
    @Test func everyFileAgreesWithGpxpy() throws {
        let corpus = try #require(TestSupport.corpus)
        let reference = try JSONValue.parse(
            [UInt8](Data(contentsOf: corpus.appendingPathComponent("reference/gpx.json"))))
        guard case .object(let root) = reference, case .object(let files)? = root["files"] else {
            Issue.record("unexpected gpx.json layout")
            return
        }
        func int(_ v: JSONValue?) -> Int? {
            if case .number(let n, _)? = v { return Int(n) }
            return nil
        }
        func double(_ v: JSONValue?) -> Double? {
            if case .number(let n, _)? = v { return n }
            return nil
        }
        var checked = 0
        for (name, value) in files.members {
            guard case .object(let r) = value else { continue }
            let path = corpus.appendingPathComponent(name).path
            guard r["parsed"] == .bool(true) else {
                #expect(throws: GPXError.self) { try GPXStatistics.of(path: path) }
                continue
            }
            let s = try GPXStatistics.of(path: path)
            #expect(s.tracks == int(r["tracks"]), "\(name) tracks")
            #expect(s.segments == int(r["segments"]), "\(name) segments")
            #expect(s.points == int(r["track_points"]), "\(name) points")
            #expect(s.waypoints == int(r["waypoints"]), "\(name) waypoints")
            #expect(s.routes == int(r["routes"]), "\(name) routes")
            #expect(s.routePoints == int(r["route_points"]), "\(name) route points")
            let length = try #require(double(r["length_2d_geodesic_m"]))
            #expect(
                abs(s.lengthMeters - length) <= 0.001 * length + 1e-6,
                "\(name) length \(s.lengthMeters) vs \(length)")
            for (mine, theirs) in [(s.firstPoint, r["first_point"]), (s.lastPoint, r["last_point"])] {
                if case .array(let p)? = theirs {
                    #expect(
                        mine?.latitude == double(p[0]) && mine?.longitude == double(p[1]), "\(name) end point"
                    )
                    #expect(mine?.elevationMeters == double(p[2]), "\(name) end point elevation")
                } else {
                    #expect(mine == nil, "\(name) end point")
                }
            }
            if case .object(let extremes)? = r["elevation_extremes"] {
                #expect(
                    s.minElevationMeters == double(extremes["min"])
                        && s.maxElevationMeters == double(extremes["max"]), "\(name) elevations")
            }
            if case .object(let bounds)? = r["time_bounds"] {
                for (mine, theirs) in [(s.start, bounds["start"]), (s.end, bounds["end"])] {
                    if case .string(let text)? = theirs {
                        // gpxpy leaves a time without an offset naive; GPX times are UTC (GPX 1.1 dateTime).
                        let expected = GPXTime.parse(text)
                        #expect(
                            mine.map { abs($0.timeIntervalSince(expected!)) < 1e-3 } == true,
                            "\(name) time bound")
                    } else {
                        #expect(mine == nil, "\(name) time bound")
                    }
                }
            }
            #expect(s.skipped.isEmpty, "\(name) skipped \(s.skipped)")
            checked += 1
        }
        #expect(checked == 24)
    }

    @Test func extensionsCommentsAndBOMsRead() throws {
        let corpus = try #require(TestSupport.corpus)
        let bom = try GPXStatistics.of(
            path: corpus.appendingPathComponent("gpx/gpxpy__unicode_with_bom.gpx").path)
        #expect(bom.waypoints == 1)
        let comments = try GPXStatistics.of(
            path: corpus.appendingPathComponent("gpx/gpxpy__gpx-with-node-with-comments.gpx").path)
        #expect(comments.points == 1)
        var hdops: [Double] = []
        try GPXReader.read(path: corpus.appendingPathComponent("gpx/gpxpy__gpx1.1_with_all_fields.gpx").path)
        { event in
            if case .point(let p) = event, let hdop = p.hdop { hdops.append(hdop) }
        } restart: {
            hdops.removeAll()
        }
        #expect(!hdops.isEmpty)
    }
}

@Suite struct GPXErrorTests {
    func write(_ text: String) throws -> String {
        let url = try TestSupport.temporaryDirectory("vsh-gpx").appendingPathComponent("walk.gpx")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func malformedXMLNamesTheLine() throws {
        let path = try write(
            "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"></trk>\n</gpx>\n"
        )
        #expect {
            try GPXStatistics.of(path: path)
        } throws: { error in
            guard case .malformed(_, let line, let message) = error as? GPXError else { return false }
            return line == 4 && message.contains("mismatch")
        }
    }

    @Test func anotherXMLDocumentIsNotGPX() throws {
        let path = try write("<?xml version=\"1.0\"?>\n<kml><Document/></kml>\n")
        #expect(throws: GPXError.wrongRoot(file: path, expected: "gpx", root: "kml")) {
            try GPXStatistics.of(path: path)
        }
        let empty = try write("")
        #expect(throws: GPXError.self) { try GPXStatistics.of(path: empty) }
    }

    @Test func invalidPointsAreSkippedWithTheirLines() throws {
        let path = try write(
            """
            <gpx version="1.1" creator="test"><trk><trkseg>
            <trkpt lat="36.1" lon="-115.1"><time>2026-11-21T19:30:00.5-08:00</time><extensions><hAcc>4.5</hAcc></extensions></trkpt>
            <trkpt lat="96.1" lon="-115.1"/>
            <trkpt lon="-115.1"/>
            <trkpt lat="36.1" lon="-115.2"><ele>612.5</ele><hdop>1.2</hdop></trkpt>
            </trkseg></trk></gpx>
            """)
        var points: [GPXPoint] = []
        var skipped: [Int] = []
        try GPXReader.read(path: path) { event in
            if case .point(let p) = event { points.append(p) }
            if case .skipped(let line, _) = event { skipped.append(line) }
        } restart: {
            points.removeAll()
            skipped.removeAll()
        }
        #expect(points.count == 2)
        #expect(skipped == [3, 4])
        #expect(points[0].time == RFC3339.parse("2026-11-22T03:30:00.5Z"))
        #expect(points[0].horizontalAccuracyMeters == 4.5)
        #expect(points[1].elevationMeters == 612.5 && points[1].hdop == 1.2)
    }

    /// Nested entities (the "billion laughs" shape) are refused by libxml2's
    /// amplification guard as malformed input, not expanded.
    @Test func entityBombsAreRefused() throws {
        let path = try write(
            """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY a "1234567890"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
            <gpx version="1.1"><wpt lat="1" lon="2"><name>&c;</name></wpt></gpx>
            """)
        #expect {
            try GPXStatistics.of(path: path)
        } throws: { error in
            if case .malformed = error as? GPXError { return true }
            return false
        }
    }
}
