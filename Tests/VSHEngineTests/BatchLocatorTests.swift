import Foundation
import Testing
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

@testable import VSHEngine

/// Issue 18: among many stops `vsh locate --fixes` looks fixes up in grid-cell order, a batch
/// at a time, and answers in file order. In batches of 97 (and of one), the answers are those of
/// one fix at a time, line for line: fixes covered by two stops, on vertices and edges (which
/// SpatiaLite decides), outside every stop, and a bad line, before which the same answers come.
@Suite struct BatchLocatorTests {
    /// A league in a new folder of `count` synthetic stops, one hunt.
    static func world(_ name: String, count: Int, seed: UInt64) async throws -> (
        folder: URL, store: SpatiaLiteStore, stops: [Stop]
    ) {
        let folder = try TestSupport.temporaryDirectory(name)
        let store = try SpatiaLiteStore(path: folder.appendingPathComponent("world.sqlite").path)
        let stops = syntheticStops(count: count, seed: seed)
        try await store.replace(with: HuntCatalog(hunts: [Hunt(id: "world", name: "W", stops: stops)]))
        return (folder, store, stops)
    }

    @Test func cellOrderAnswersAsOneFixAtATime() async throws {
        let (folder, store, stops) = try await Self.world("vsh-locator", count: 1_200, seed: 7)
        defer { TestSupport.remove(folder) }
        var random = SplitMix64(seed: 11)
        var lines = randomFixLines(20_000, &random)
        for stop in stops.prefix(300) {
            let ring = stop.geofence.polygons[0].shell.positions
            let a = ring[0]
            let b = ring[1]
            lines.append("\(a.latitude),\(a.longitude)")
            lines.append("\((a.latitude + b.latitude) / 2),\((a.longitude + b.longitude) / 2)")
        }
        lines.shuffle(using: &random)
        lines.insert("lat,lon", at: 0)
        let file = folder.appendingPathComponent("fixes.csv")
        try Data((lines + ["not a fix", "36.1,-115.1"]).joined(separator: "\n").utf8).write(to: file)

        let index = try await store.compiledIndex()
        func answers(_ locator: BatchLocator) async -> (answers: [String], error: String) {
            var out: [String] = []
            do {
                try await locator.locate(path: file.path) { line, hunt, stop in
                    out.append("\(line) \(hunt) \(stop)")
                }
            } catch {
                return (out, "\(error)")
            }
            return (out, "none")
        }
        let streamed = await answers(
            BatchLocator(index: index, store: store, cellOrderAbove: .max, twoThreadsFrom: nil))
        #expect(streamed.error.contains(":\(lines.count + 1)"), "\(streamed.error)")
        #expect(streamed.answers.count > 500)
        let fixLines = streamed.answers.map { $0.split(separator: " ")[0] }
        #expect(Set(fixLines).count < fixLines.count, "some fix is covered by two stops")
        for size in [97, 1] {
            let batched = await answers(
                BatchLocator(
                    index: index, store: store, cellOrderAbove: 0, batchSize: size, twoThreadsFrom: nil))
            #expect(batched.answers == streamed.answers, "batches of \(size)")
            #expect(batched.error == streamed.error)
        }
        // On two threads, in file order and in cell order (batches of 97): the same answers, then
        // the error.
        let twoThreads = [
            BatchLocator(index: index, store: store, cellOrderAbove: .max, twoThreadsFrom: 0),
            BatchLocator(index: index, store: store, cellOrderAbove: 0, batchSize: 97, twoThreadsFrom: 0),
        ]
        for locator in twoThreads {
            let looked = await answers(locator)
            #expect(
                looked.answers == streamed.answers, "two threads, cell order above \(locator.cellOrderAbove)")
            #expect(looked.error == streamed.error)
        }
    }

    /// On two threads, a bad line in the first batch and a file that ends without a bad line:
    /// the answers before it, then its error; every answer, then none.
    @Test func twoThreadsAnswerInFileOrderThenStop() async throws {
        let (folder, store, _) = try await Self.world("vsh-locator-two", count: 200, seed: 3)
        defer { TestSupport.remove(folder) }
        let index = try await store.compiledIndex()
        var random = SplitMix64(seed: 19)
        let fixes = randomFixLines(9_000, &random)
        for (name, lines, error) in [
            (
                "early", Array(fixes.prefix(2_000)) + ["95,1"] + fixes,
                ":2001: latitude or longitude out of range"
            ),
            ("none", ["# fixes", "lat,lon"] + fixes + [""], "none"),
        ] {
            let file = folder.appendingPathComponent("\(name).csv")
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            var results: [[String]] = []
            var errors: [String] = []
            for twoThreadsFrom in [nil, 0] {
                var out: [String] = []
                var failure = "none"
                do {
                    try await BatchLocator(index: index, store: store, twoThreadsFrom: twoThreadsFrom)
                        .locate(path: file.path) { out.append("\($0) \($1) \($2)") }
                } catch { failure = "\(error)" }
                results.append(out)
                errors.append(failure)
            }
            #expect(results[0] == results[1], "\(name)")
            #expect(errors[0] == errors[1], "\(name)")
            #expect(errors[0].hasSuffix(error) || errors[0] == error, "\(name): \(errors[0])")
            #expect(results[0].count > (name == "none" ? 50 : 10), "\(name): \(results[0].count) answers")
        }
    }

    /// `vsh locate --fixes` opens its file before the league: on two threads, blocks are read and
    /// parsed before the index is there, at most `bytesAhead` of them (a block's worth more), and
    /// then answered as the file's lines decide: a header after a comment, fixes on edges, a bad
    /// line late in the file; and every answer of a file without one.
    @Test func aFileReadBeforeTheIndexAnswersAsItsLinesDecide() async throws {
        let (folder, store, stops) = try await Self.world("vsh-locator-ahead", count: 150, seed: 31)
        defer { TestSupport.remove(folder) }
        let index = try await store.compiledIndex()
        var random = SplitMix64(seed: 37)
        var fixes = randomFixLines(6_000, &random)
        for stop in stops.prefix(60) {
            let ring = stop.geofence.polygons[0].shell.positions
            fixes.append("\(ring[0].latitude),\(ring[0].longitude)")
        }
        fixes.shuffle(using: &random)
        for (name, lines) in [
            ("bad late", ["# a walk", "lat,lon"] + fixes + ["36.1,x"] + fixes.prefix(100)),
            ("clean", ["lat,lon"] + fixes),
        ] {
            let file = folder.appendingPathComponent("\(name).csv")
            let text = lines.joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: file)
            let truth = try await Self.expected(text, store: store, file: file.path)
            #expect(truth.answers.count > 100, "\(name)")
            #expect((truth.error == "none") == (name == "clean"), "\(name)")
            for (cellOrderAbove, batchSize) in [(Int.max, 1 << 16), (0, 97)] {
                let (blockBytes, bytesAhead) = (4_096, 32_768)
                let fixes = try BatchLocator.Fixes(
                    path: file.path, twoThreadsFrom: 0, blockBytes: blockBytes, bytesAhead: bytesAhead)
                #expect(text.utf8.count > 3 * bytesAhead)
                fixes.waitForReadAhead()
                let ahead = fixes.condition.withLock { fixes.mostBytesInSlots }
                #expect(
                    ahead >= bytesAhead && ahead < bytesAhead + blockBytes + 100, "\(name): \(ahead) bytes")
                var out: [String] = []
                var failure = "none"
                do {
                    try await BatchLocator(
                        index: index, store: store, cellOrderAbove: cellOrderAbove, batchSize: batchSize
                    )
                    .locate(fixes) { out.append("\($0) \($1) \($2)") }
                } catch { failure = "\(error)" }
                #expect(out == truth.answers, "\(name), cell order above \(cellOrderAbove)")
                #expect(failure == truth.error, "\(name), cell order above \(cellOrderAbove)")
                let most = fixes.condition.withLock { fixes.mostBytesInSlots }
                #expect(most < bytesAhead + blockBytes + 100, "\(name): \(most) bytes read ahead")
            }
        }
    }

    /// What a file of fixes should give, line by line, decided here: each line split on LF (a CR
    /// before it dropped), blank lines and `#` comments skipped, one header before the first fix,
    /// and every fix asked of SpatiaLite itself; the first other line is the error, after the
    /// answers before it.
    static func expected(_ text: String, store: SpatiaLiteStore, file: String) async throws -> (
        answers: [String], error: String
    ) {
        // By bytes: "\r\n" is one Character, which splitting a String on "\n" would not cut.
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if lines.last == "" { lines.removeLast() }
        var answers: [String] = []
        var sawData = false
        for (i, raw) in lines.enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if fields.count >= 2, let lat = Double(fields[0]), let lon = Double(fields[1]) {
                sawData = true
                guard abs(lat) <= 90, abs(lon) <= 180 else {
                    return (answers, "\(file):\(i + 1): latitude or longitude out of range")
                }
                for stop in try await store.spatiaLiteStops(covering: Coordinate(unchecked: lat, lon)) {
                    answers.append("\(i + 1) \(stop.huntID) \(stop.stopID)")
                }
            } else if trimmed.isEmpty || trimmed.hasPrefix("#") {
                continue
            } else if !sawData && line.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                sawData = true
            } else {
                return (answers, "\(file):\(i + 1): expected \"lat,lon\" in decimal degrees")
            }
        }
        return (answers, "none")
    }

    /// Files read in blocks of any size (a line or less, a few lines, many), on one thread and on
    /// two, in file order and in cell order, answer as the file's lines decide: a header after
    /// comments, CRLF endings, a last line without one, a line longer than a block, fixes on
    /// edges (which SpatiaLite decides), and a bad line early, in the middle or last.
    @Test func blocksOfAnySizeAnswerAsTheLinesDecide() async throws {
        let (folder, store, stops) = try await Self.world("vsh-locator-blocks", count: 150, seed: 17)
        defer { TestSupport.remove(folder) }
        let index = try await store.compiledIndex()
        var random = SplitMix64(seed: 23)
        var fixes = randomFixLines(1_500, &random)
        for stop in stops.prefix(60) {
            let ring = stop.geofence.polygons[0].shell.positions
            fixes.append("\(ring[0].latitude),\(ring[0].longitude)")
            fixes.append("\(ring[1].latitude),\(ring[1].longitude)\r")
        }
        fixes.shuffle(using: &random)
        let head = ["# fixes of the walk", "", "   ", "lat,lon"]
        let long = "# " + String(repeating: "x", count: 700)
        let files: [(String, String)] = [
            (
                "clean",
                (head + fixes.prefix(800) + [long] + fixes.dropFirst(800)).joined(separator: "\n") + "\n"
            ),
            ("no last newline", (head + fixes).joined(separator: "\n")),
            ("bad early", (head + fixes.prefix(3) + ["3,x"] + fixes).joined(separator: "\n")),
            ("bad in the middle", (head + fixes.prefix(1_100) + ["lat,lon"] + fixes).joined(separator: "\n")),
            ("out of range last", (fixes + ["36.1,-181"]).joined(separator: "\n") + "\n"),
        ]
        var checked = 0
        for (name, text) in files {
            let file = folder.appendingPathComponent("\(name).csv")
            try Data(text.utf8).write(to: file)
            let truth = try await Self.expected(text, store: store, file: file.path)
            // The file decides as meant: the clean ones end without an error, the others with
            // one; all but the one that goes wrong at its fourth fix have answers before it.
            #expect((truth.error == "none") == ["clean", "no last newline"].contains(name), "\(name)")
            #expect(truth.answers.count > (name == "bad early" ? -1 : 50), "\(name)")
            for blockBytes in [1, 40, 997, 1 << 16, nil] {
                for twoThreadsFrom in [nil, 0] {
                    for (cellOrderAbove, batchSize) in [(Int.max, 1 << 16), (0, 97)] {
                        let locator = BatchLocator(
                            index: index, store: store, cellOrderAbove: cellOrderAbove, batchSize: batchSize,
                            twoThreadsFrom: twoThreadsFrom, blockBytes: blockBytes)
                        var out: [String] = []
                        var failure = "none"
                        do {
                            try await locator.locate(path: file.path) { out.append("\($0) \($1) \($2)") }
                        } catch { failure = "\(error)" }
                        let what =
                            "\(name), blocks of \(blockBytes ?? 0), two threads from \(twoThreadsFrom ?? -1), cell order above \(cellOrderAbove)"
                        #expect(out == truth.answers, "\(what)")
                        #expect(failure == truth.error, "\(what)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 100)
    }

    /// A line of over 1 MiB stops the reading there, whatever it holds (a comment, a file of one
    /// line without an end): the answers before it, then its line in the error.
    @Test func aLineOfOverAMebibyteStopsTheFile() async throws {
        let (folder, store, stops) = try await Self.world("vsh-locator-long", count: 50, seed: 29)
        defer { TestSupport.remove(folder) }
        let index = try await store.compiledIndex()
        let inside = stops.prefix(30).map { stop in
            let ring = stop.geofence.polygons[0].shell.positions
            return
                "\((ring[0].latitude + ring[2].latitude) / 2),\((ring[0].longitude + ring[2].longitude) / 2)"
        }
        let long = "# " + String(repeating: "y", count: (1 << 20) + 10)
        for (name, text, line, answered) in [
            ("comment", (["lat,lon"] + inside + [long] + inside).joined(separator: "\n"), 32, true),
            ("one line", String(long.dropFirst(2)), 1, false),
            (
                "just short", (inside + [String(long.prefix(1 << 20))] + ["95,1"]).joined(separator: "\n"),
                32, true
            ),
        ] {
            let file = folder.appendingPathComponent("\(name).csv")
            try Data(text.utf8).write(to: file)
            let truth = try await Self.expected(
                text.split(separator: "\n", omittingEmptySubsequences: false).prefix(line - 1).joined(
                    separator: "\n"),
                store: store, file: file.path)
            #expect(truth.answers.isEmpty != answered, "\(name)")
            for blockBytes in [40, nil] {
                for twoThreadsFrom in [nil, 0] {
                    var out: [String] = []
                    var failure = "none"
                    do {
                        try await BatchLocator(
                            index: index, store: store, twoThreadsFrom: twoThreadsFrom, blockBytes: blockBytes
                        )
                        .locate(path: file.path) { out.append("\($0) \($1) \($2)") }
                    } catch { failure = "\(error)" }
                    #expect(out == truth.answers, "\(name)")
                    let expected =
                        name == "just short"
                        ? "\(file.path):\(line): latitude or longitude out of range"
                        : "\(file.path):\(line): a line of over 1 MiB, not a fix"
                    #expect(failure == expected, "\(name), blocks of \(blockBytes ?? 0)")
                }
            }
        }
    }

    /// The reader holds no more than a little over 1 MiB of a line of 16 MiB: it stops there,
    /// with the lines before it returned.
    @Test func theReaderStopsAtALongLineWithoutReadingIt() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-reader-long")
        defer { TestSupport.remove(folder) }
        let file = folder.appendingPathComponent("long.csv")
        try Data(
            ("36.1,-115.1\n36.2,-115.2\n" + String(repeating: "7", count: 16 << 20) + "\n36.3,-115.3\n").utf8
        )
        .write(to: file)
        let reader = try LineReader(path: file.path)
        var blocks: [[UInt8]] = []
        while let block = reader.nextBlock(atLeast: 1 << 18, longestLine: 1 << 20) { blocks.append(block) }
        #expect(blocks == [Array("36.1,-115.1\n36.2,-115.2\n".utf8)])
        #expect(reader.stoppedAtALongLine)
        #expect(reader.bytesRead < (1 << 20) + (1 << 19), "\(reader.bytesRead) bytes read")
    }

    /// The one-pass reader of plain `lat,lon` lines gives what the general reader and Swift's own
    /// `Double(String)` give, bit for bit, on 20,000 random lines: signs, up to 18 digits (past
    /// the 15 it takes), points with digits on one side only, CRLF, a line without its end, a
    /// third field, spaces, out of range; and declines every line it does not take.
    @Test func theOnePassReaderReadsAsTheGeneralOne() {
        var random = SplitMix64(seed: 41)
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(random.next() % 10)) })
        }
        func number() -> String {
            let whole = digits(pick([0, 1, 2, 3, 3, 3, 9]))
            let point = pick(["", ".", ".", "."])
            let fraction = point.isEmpty ? "" : digits(pick([0, 1, 4, 7, 7, 7, 12, 15]))
            return pick(["", "", "-", "+"]) + whole + point + fraction
        }
        var plain = 0
        for n in 0..<20_000 {
            let text =
                pick(["", "", "", " "]) + number() + "," + number() + pick(["", "", "", "", ",x", " ", ",1"])
                + pick(["\n", "\n", "\r\n", "", "\r"])
            let bytes = Array(text.utf8)
            // The truth: the line without its end (by bytes: "\r\n" is one Character), split on
            // commas, each number trimmed.
            var line = bytes[...]
            let ended = line.last == 0x0A
            if ended { line.removeLast() }
            if line.last == 0x0D { line.removeLast() }
            let fields = String(decoding: line, as: UTF8.self).split(
                separator: ",", omittingEmptySubsequences: false
            )
            .map { $0.trimmingCharacters(in: .whitespaces) }
            let truth =
                fields.count >= 2 ? Double(fields[0]).flatMap { a in Double(fields[1]).map { (a, $0) } } : nil
            let inRange = truth.map { abs($0.0) <= 90 && abs($0.1) <= 180 } ?? false
            let onePass = bytes.withUnsafeBufferPointer { BatchLocator.plainFix($0, at: 0) }
            if let onePass {
                plain += 1
                #expect(
                    onePass.next == bytes.count + (ended ? 0 : 1),
                    "\(n): \(text.debugDescription)")
                #expect(
                    onePass.0.bitPattern == truth?.0.bitPattern
                        && onePass.1.bitPattern == truth?.1.bitPattern,
                    "\(n): \(text.debugDescription)")
            }
            let general = bytes.withUnsafeBufferPointer { bytes in
                BatchLocator.parse(BatchLocator.line(in: bytes, at: 0).0)
            }
            #expect(
                general?.0.bitPattern == truth?.0.bitPattern && general?.1.bitPattern == truth?.1.bitPattern)
            let parsed = BatchLocator.parse(bytes, from: 0, batchSize: 1 << 16)
            if inRange, let truth {
                #expect(parsed.stop == nil && parsed.batches.count == 1, "\(n): \(text.debugDescription)")
                #expect(parsed.batches.first?.lats == [truth.0] && parsed.batches.first?.lons == [truth.1])
            } else {
                #expect(parsed.stop == 0 && parsed.batches.isEmpty, "\(n): \(text.debugDescription)")
            }
        }
        #expect(plain > 4_000 && plain < 16_000, "\(plain) lines read in one pass")
    }

    /// The radix sort orders keys by their cell (the bits above the low 16), equal cells in the
    /// order they came: as a stable sort does, for cells of one to three 11-bit digits.
    @Test func theRadixSortIsAStableSortByCell() {
        var random = SplitMix64(seed: 5)
        for cells in [1, 2_000, 4_000_000, 1 << 30] {
            var keys = (0..<5_000).map { i in (random.next() % UInt64(cells)) << 16 | UInt64(i) }
            let expected = keys.enumerated().sorted {
                ($0.element >> 16, $0.offset) < ($1.element >> 16, $1.offset)
            }
            .map(\.element)
            BatchLocator.radixSort(&keys)
            #expect(keys == expected, "\(cells) cells")
        }
    }
}
