import Foundation
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHXML

/// The byte scanner against libxml2 on the same files: whatever the scanner reads to the end
/// must give libxml2's events (points, lines, skips, the version) exactly; whatever libxml2
/// refuses, the scanner must decline, so that libxml2 names the error.
@Suite struct GPXByteScannerTests {
    /// What one reader made of a file.
    struct Reading: Equatable {
        var events: [GPXEvent] = []
        var version: String?
    }

    /// libxml2's reading, or nil when it refuses the file.
    static func libxml2(_ path: String) -> Reading? {
        var reading = Reading()
        do {
            reading.version = try GPXReader.readWithLibXML2(path: path) { reading.events.append($0) }
        } catch { return nil }
        return reading
    }

    /// The scanner's reading, or why it declined.
    static func scanner(_ path: String) throws -> Result<Reading, DeclinedError> {
        var reading = Reading()
        if let reason = try GPXReader.scanOnly(
            path: path, version: &reading.version, { reading.events.append($0) })
        {
            return .failure(DeclinedError(reason: reason))
        }
        return .success(reading)
    }

    struct DeclinedError: Error { let reason: String }

    /// The scanner's reading in segments of `segmentBytes` on two threads: its outcome, how many
    /// segments were joined, and the events.
    static func segmented(_ path: String, segmentBytes: Int) throws -> (
        outcome: GPXByteScanner.Outcome, joined: Int, reading: Reading
    ) {
        var reading = Reading()
        let (outcome, joined) = try GPXReader.scanInSegments(
            path: path, segmentBytes: segmentBytes, version: &reading.version
        ) { reading.events.append($0) }
        return (outcome, joined, reading)
    }

    /// Checks one file both ways, and in small segments against the scan in one piece (the same
    /// events, or the same decline, or segments that do not join); true when the scanner read it.
    @discardableResult
    static func agree(_ path: String, _ label: String, segmentBytes: Int = 64) throws -> Bool {
        let reference = libxml2(path)
        let whole = try scanner(path)
        let (outcome, _, pieces) = try segmented(path, segmentBytes: segmentBytes)
        switch whole {
        case .success(let scanned):
            #expect(reference != nil, "\(label): libxml2 refuses a file the scanner read")
            #expect(scanned == reference, "\(label): the scanner's events differ from libxml2's")
            #expect(outcome == .read || outcome == .unsettled, "\(label): in segments: \(outcome)")
            if outcome == .read { #expect(pieces == scanned, "\(label): the segments' events differ") }
            return true
        case .failure(let declined):
            #expect(
                outcome == .declined(declined.reason) || outcome == .unsettled,
                "\(label): declined (\(declined.reason)), in segments: \(outcome)")
            return false
        }
    }

    static func write(_ text: String, _ name: String = "walk.gpx") throws -> String {
        try write(Array(text.utf8), name)
    }

    static func write(_ bytes: [UInt8], _ name: String = "walk.gpx") throws -> String {
        let url = try TestSupport.temporaryDirectory("vsh-gpx-scan").appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static var fixtureWalks: [String] {
        let folder = TestSupport.packageRoot.appendingPathComponent("Fixtures/walks")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".gpx") }.sorted().map { folder.appendingPathComponent($0).path }
    }

    /// The project's walks are plain GPX: the scanner reads every one, as libxml2 does.
    @Test func theWalksReadTheSameBothWays() throws {
        let walks = Self.fixtureWalks
        #expect(walks.count >= 6)
        for path in walks {
            #expect(try Self.agree(path, path), "\(path): the scanner declined a plain walk")
        }
    }

    /// Real files from gpxpy's and gpsbabel's test suites: each one the scanner reads agrees with
    /// libxml2, and most are read (the rest have a BOM, a DOCTYPE, `xml:` attributes, ...).
    @Test(.needsCorpus) func everyCorpusFileTheScannerReadsAgrees() throws {
        let folder = try #require(TestSupport.corpus).appendingPathComponent("gpx")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".gpx")
        }
        #expect(files.count == 24)
        var read = 0
        for name in files where try Self.agree(folder.appendingPathComponent(name).path, name) { read += 1 }
        #expect(read >= 16, "the scanner read \(read) of \(files.count)")
    }

    /// The hostile fixtures (an entity bomb, an external entity, Shift-JIS, deep nesting) are all
    /// declined: libxml2 refuses or decodes them.
    @Test func hostileFilesAreLeftToLibxml2() throws {
        let folder = TestSupport.packageRoot.appendingPathComponent("Fixtures/hostile")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".gpx")
        }
        #expect(files.count >= 4)
        for name in files {
            #expect(try !Self.agree(folder.appendingPathComponent(name).path, name), "\(name) was read")
        }
    }

    static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let plain =
        "<gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        + "<trkpt lat=\"36.1\" lon=\"-115.1\"><ele>610.5</ele><time>2026-11-21T19:30:00Z</time></trkpt>\n"
        + "</trkseg></trk></gpx>\n"

    /// Forms the scanner reads, each giving libxml2's events: line breaks of both kinds, tags over
    /// several lines, comments, prefixes, single quotes, empty elements, text in other scripts.
    @Test(arguments: [
        head + plain,
        plain,
        (head + plain).replacingOccurrences(of: "\n", with: "\r\n"),
        "<gpx version='1.0'>\n<wpt\n  lat='1.5'\n  lon='2.5'\n/>\n<rte><rtept lat=\"1\" lon=\"2\"></rtept></rte></gpx>",
        "<!-- a walk -->\n<gpx>\n<!-- - -->\n<trk><name>Caf\u{E9} \u{1F3B2} a > b</name><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>\n 5 \n</ele></trkpt></trkseg></trk></gpx>\n<!-- end -->\n",
        "<?xml version=\"1.0\" standalone=\"yes\" ?><g:gpx xmlns:g=\"http://www.topografix.com/GPX/1/1\" xmlns:x=\"urn:x\">"
            + "<g:trk><g:trkseg><g:trkpt lat=\"1\" lon=\"2\" x:note=\"n\"><g:extensions><x:hAcc>4.5</x:hAcc></g:extensions>"
            + "</g:trkpt></g:trkseg></g:trk></g:gpx>",
        "<gpx><trk><trkseg><trkpt lat=\"91\" lon=\"2\"/><trkpt lon=\"2\"/><trkpt lat=\" 1 \" lon=\"2e1\"><time>bad</time>"
            + "<hdop>-1</hdop><ele>1<b/>2</ele></trkpt></trkseg></trk></gpx>",
        "<gpx ><trk ><trkseg\n><trkpt lat = \"1\"\tlon=\"2\" ></trkpt ></trkseg ></trk ></gpx >",
    ])
    func plainFormsAreReadAlike(document: String) throws {
        let path = try Self.write(document)
        #expect(try Self.agree(path, document), "the scanner declined: \(document)")
    }

    /// Forms the scanner leaves to libxml2, valid or not; for the invalid ones libxml2's error is
    /// what the organiser sees.
    @Test(arguments: [
        "\u{FEFF}" + plain,
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + plain,
        "<?xml version=\"1.1\"?>" + plain,
        "<!DOCTYPE gpx>" + plain,
        "<gpx><wpt lat=\"1\" lon=\"2\"><name>a &amp; b</name></wpt></gpx>",
        "<gpx><wpt lat=\"1\" lon=\"2\"><name><![CDATA[x]]></name></wpt></gpx>",
        "<gpx><wpt lat=\"1\" lon=\"2\"><name>a ]]> b</name></wpt></gpx>",
        "<gpx><?pi x?></gpx>",
        "<gpx><wpt lat=\"1\" lat=\"2\"/></gpx>",
        "<gpx xmlns:a=\"urn:a\" xmlns:b=\"urn:a\"><wpt a:lat=\"1\" b:lat=\"2\"/></gpx>",
        "<gpx><wpt q:lat=\"1\" lon=\"2\"/></gpx>",
        "<q:gpx><wpt/></q:gpx>",
        "<gpx><wpt xml:lang=\"en\"/></gpx>",
        "<gpx><trk></gpx>",
        "<gpx><trk>",
        "<gpx></gpx><gpx></gpx>",
        "<gpx></gpx>text",
        "<gpx><wpt lat=1 lon=\"2\"/></gpx>",
        "<gpx><wpt lat=\"1\"lon=\"2\"/></gpx>",
        "<gpx><wpt lat=\"1\nx\" lon=\"2\"/></gpx>",
        "<gpx><name>a\rb</name></gpx>",
        "<gpx><name>a\u{01}b</name></gpx>",
        "<gpx><!-- a -- b --></gpx>",
        "<gpx><\u{E9}/></gpx>",
        "<kml></kml>",
        "",
        "  ",
        String(repeating: "<a>", count: 300),
    ])
    func otherFormsAreDeclined(document: String) throws {
        let path = try Self.write(document)
        guard case .failure = try Self.scanner(path) else {
            Issue.record("the scanner read: \(document)")
            return
        }
    }

    /// Bytes that are not UTF-8 (a Latin-1 é, an overlong slash, a surrogate, U+FFFE) are declined.
    @Test(arguments: [
        [0xE9], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBE], [0xF4, 0x90, 0x80, 0x80],
    ])
    func bytesThatAreNotUTF8AreDeclined(bytes: [UInt8]) throws {
        let path = try Self.write(Array("<gpx><name>a".utf8) + bytes + Array("b</name></gpx>".utf8))
        guard case .failure = try Self.scanner(path) else {
            Issue.record("the scanner read \(bytes)")
            return
        }
    }

    /// A walk of several MiB in varied forms: tags, comments and text cross the scanner's 1 MiB
    /// reads at many offsets, and every point and line agrees with libxml2.
    @Test func aLongWalkCrossesTheReadsAlike() throws {
        var text = Self.head + "<gpx version=\"1.1\" xmlns:x=\"urn:x\"><trk><trkseg>\n"
        var random = SplitMix64(seed: 39)
        for i in 0..<40_000 {
            let lat = String(format: "%.7f", 36 + Double(i) * 1e-5)
            switch random.next() % 4 {
            case 0:
                text +=
                    "<trkpt lat=\"\(lat)\" lon=\"-115.1\"><ele>61\(i % 10).5</ele>"
                    + "<time>2026-11-21T19:\(10 + i % 50):00Z</time></trkpt>\n"
            case 1:
                text +=
                    "<trkpt\n   lat='\(lat)'\n   lon='-115.2'>\r\n<!-- fix \(i) -->"
                    + "<extensions><x:hAcc>\(i % 20)</x:hAcc></extensions></trkpt>\n"
            case 2:
                text +=
                    "<trkpt lat=\"\(lat)\" lon=\"-115.3\"/><!--\(String(repeating: "z", count: i % 97))-->\n"
            default:
                text +=
                    "<trkpt lat=\"\(lat)\" lon=\"-115.4\"><name>caf\u{E9} \(i)</name><hdop>1.\(i % 9)</hdop></trkpt>"
            }
        }
        text += "</trkseg></trk></gpx>\n"
        #expect(text.utf8.count > 3 << 20)
        let path = try Self.write(text)
        #expect(try Self.agree(path, "the long walk"), "the scanner declined the long walk")
        guard case .success(let scanned) = try Self.scanner(path) else { return }
        #expect(scanned.events.filter { if case .point = $0 { true } else { false } }.count == 40_000)
        // In segments of 64 KiB on two threads: every segment joins, and the events (lines
        // included) are the scan in one piece's.
        let (outcome, joined, pieces) = try Self.segmented(path, segmentBytes: 1 << 16)
        #expect(outcome == .read)
        #expect(joined > 40, "\(joined) segments joined")
        #expect(pieces == scanned)
    }

    /// Segments of 200 bytes on a walk of several tracks, skipped points, line breaks of both
    /// kinds and extensions: hundreds of segments join, and every event and line is libxml2's.
    @Test func smallSegmentsJoinIntoTheSameEvents() throws {
        var text = Self.head + "<gpx version=\"1.1\" xmlns:x=\"urn:x\">\n"
        for track in 0..<3 {
            text += "<trk><name>t\(track)</name><trkseg>\r\n"
            for i in 0..<300 {
                let lat = i % 37 == 0 ? "95" : String(format: "%.6f", 36 + Double(i) * 1e-4)
                text +=
                    "<trkpt lat=\"\(lat)\" lon=\"-115.\(i)\">\(i % 2 == 0 ? "\r\n" : "")<ele>\(i)</ele>"
                    + "<extensions><x:hAcc>\(i % 7)</x:hAcc></extensions></trkpt>\n"
            }
            text += "</trkseg></trk>\n"
            // Then 20 KB of waypoints, where no segment can start: one long segment, scanned by
            // the calling thread alone.
            for i in 0..<400 { text += "<wpt lat=\"36.\(i)\" lon=\"-115.\(i)\"><name>w</name></wpt>\n" }
        }
        text += "</gpx>\n"
        let path = try Self.write(text)
        let reference = try #require(Self.libxml2(path))
        let (outcome, joined, pieces) = try Self.segmented(path, segmentBytes: 200)
        #expect(outcome == .read)
        #expect(joined > 300, "\(joined) segments joined")
        #expect(pieces == reference)
        #expect(pieces.events.contains { if case .skipped = $0 { true } else { false } })
    }

    /// A `<trkpt` inside a comment where a segment would start: the segment before it cannot end
    /// there, the scan is unsettled, and the reader reads the file again in one piece.
    @Test func aSegmentThatCannotJoinIsReadAgainInOnePiece() throws {
        var text = "<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/>\n"
        for i in 0..<30_000 {
            text +=
                "<!-- <trkpt lat=\"0\" lon=\"0\"/> --><trkpt lat=\"1.\(i)\" lon=\"2\"><ele>\(i)</ele></trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        let path = try Self.write(text)
        let reference = try #require(Self.libxml2(path))
        let (outcome, _, _) = try Self.segmented(path, segmentBytes: 1 << 16)
        #expect(outcome == .unsettled)
        // The reader, on a file long enough to be read in segments of its own size.
        let size = text.utf8.count
        #expect(size >= GPXSegmentedScan.minimumBytes)
        var events: [GPXEvent] = []
        var restarts = 0
        let version = try GPXReader.read(path: path) {
            events.append($0)
        } restart: {
            restarts += 1
            events.removeAll()
        }
        #expect(restarts == (GPXSegmentedScan.worthIt(size: size) ? 1 : 0))
        #expect(Reading(events: events, version: version) == reference)
    }

    /// A decline in a later segment is the decline of the scan in one piece, with its reason.
    @Test func aLateSegmentDeclinesAsTheWholeScanDoes() throws {
        var text = "<gpx><trk><trkseg>\n"
        for i in 0..<2_000 { text += "<trkpt lat=\"1.\(i)\" lon=\"2\"><name>p\(i)</name></trkpt>\n" }
        text += "<trkpt lat=\"1\" lon=\"2\"><name>a &amp; b</name></trkpt>\n</trkseg></trk></gpx>\n"
        let path = try Self.write(text)
        guard case .failure(let declined) = try Self.scanner(path) else {
            Issue.record("the scanner read an entity")
            return
        }
        let (outcome, joined, _) = try Self.segmented(path, segmentBytes: 4096)
        #expect(outcome == .declined(declined.reason))
        #expect(joined > 10, "\(joined) segments joined")
    }

    /// Each walk, mutated 400 times (bytes dropped, flipped, repeated, tokens put in): whatever
    /// the scanner reads, libxml2 reads alike; whatever libxml2 refuses, the scanner declines.
    @Test func mutatedWalksNeverDiffer() throws {
        let tokens = [
            "<", ">", "/>", "</trkpt>", "<trkpt lat=\"1\" lon=\"2\">", "&amp;", "<!--", "-->", "\"", "'", "=",
            ":",
            "x:", " xmlns:x=\"urn:x\"", "\r", "\n", "]]>", "\u{E9}", "<![CDATA[", "<?x?>", "<ele>", "</ele>",
        ].map { Array($0.utf8) }
        var random = SplitMix64(seed: 2026)
        var read = 0
        var declined = 0
        for walk in Self.fixtureWalks {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: walk)))
            for round in 0..<400 {
                var bytes = original
                for _ in 0...(random.next() % 3) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 4 {
                    case 0: bytes.remove(at: at)
                    case 1: bytes[at] ^= UInt8(1 << (random.next() % 8))
                    case 2:
                        bytes.insert(contentsOf: tokens[Int(random.next() % UInt64(tokens.count))], at: at)
                    default:
                        let end = min(bytes.count, at + Int(random.next() % 64))
                        bytes.insert(contentsOf: bytes[at..<end], at: at)
                    }
                }
                let path = try Self.write(bytes, "mutant.gpx")
                if try Self.agree(path, "\(walk) round \(round)") { read += 1 } else { declined += 1 }
            }
        }
        // Both sides of the line are exercised.
        #expect(read > 200 && declined > 200, "read \(read), declined \(declined)")
    }

    /// When the scanner declines after giving events, the reader says so and libxml2's events
    /// follow: what the caller gathered before `restart` is void.
    @Test func aLateDeclineRestartsWithLibxml2() throws {
        let path = try Self.write(
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/><trkpt lat=\"3\" lon=\"4\"/></trkseg></trk>"
                + "<wpt lat=\"5\" lon=\"6\"><name>A &amp; B</name></wpt></gpx>")
        var events: [GPXEvent] = []
        var restarts = 0
        try GPXReader.read(path: path) {
            events.append($0)
        } restart: {
            restarts += 1
            events.removeAll()
        }
        #expect(restarts == 1)
        #expect(events == Self.libxml2(path)?.events)
        #expect(events.count == 5)
    }
}

/// The logger's time form (`2026-11-21T19:30:00Z`), read at fixed places, against the general
/// RFC 3339 reader: the same instant, or nil from both, on 100,000 random times and mutations.
@Suite struct GPXTimeFormTests {
    @Test func theFixedFormGivesTheGeneralReadersValue() {
        var random = SplitMix64(seed: 1120)
        var checked = 0
        var read = 0
        for _ in 0..<100_000 {
            let year = 1 + Int(random.next() % 2_999)
            let month = Int(random.next() % 14)
            let day = Int(random.next() % 33)
            let hour = Int(random.next() % 26)
            let minute = Int(random.next() % 62)
            let second = Int(random.next() % 62)
            var text = Array(
                String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute, second).utf8)
            if random.next() % 4 == 0 {
                // A byte changed: a letter, a separator, a digit or an offset's sign.
                let at = Int(random.next() % UInt64(text.count))
                text[at] = Array("0z9t-+: A/.".utf8)[Int(random.next() % 11)]
            }
            guard text.count == 20 else { continue }
            let general = text.withUnsafeBufferPointer { bytes in
                DateTimeParts.parse(bytes, requireOffset: false).map {
                    $0.secondsSinceEpochIgnoringOffset - Double($0.offsetSeconds ?? 0)
                }
            }
            let fixed = text.withUnsafeBufferPointer { GPXTime.utcSeconds($0) }
            // The fixed form may decline what the general reader takes (`t`, `z`), never differ.
            if let fixed {
                #expect(fixed == general, "\(String(decoding: text, as: UTF8.self))")
                read += 1
            }
            let parsed = text.withUnsafeBufferPointer { GPXTime.parse($0) }
            #expect(parsed?.timeIntervalSince1970 == general, "\(String(decoding: text, as: UTF8.self))")
            checked += 1
        }
        #expect(checked == 100_000 && read > 20_000, "\(read) of \(checked) by the fixed form")
    }
}
