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
    @Test func cellOrderAnswersAsOneFixAtATime() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-locator")
        defer { TestSupport.remove(folder) }
        let store = try SpatiaLiteStore(path: folder.appendingPathComponent("world.sqlite").path)
        let stops = syntheticStops(count: 1_200, seed: 7)
        try await store.replace(with: HuntCatalog(hunts: [Hunt(id: "world", name: "W", stops: stops)]))
        var random = SplitMix64(seed: 11)
        var lines: [String] = []
        for _ in 0..<3_000 {
            lines.append("\(36.05 + random.unit() * 0.15),\(-115.25 + random.unit() * 0.15)")
        }
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
        let streamed = await answers(BatchLocator(index: index, store: store, cellOrderAbove: .max))
        #expect(streamed.error.contains(":\(lines.count + 1)"), "\(streamed.error)")
        #expect(streamed.answers.count > 500)
        let fixLines = streamed.answers.map { $0.split(separator: " ")[0] }
        #expect(Set(fixLines).count < fixLines.count, "some fix is covered by two stops")
        for size in [97, 1] {
            let batched = await answers(
                BatchLocator(index: index, store: store, cellOrderAbove: 0, batchSize: size))
            #expect(batched.answers == streamed.answers, "batches of \(size)")
            #expect(batched.error == streamed.error)
        }
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
