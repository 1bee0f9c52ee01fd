import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

/// Issue 39: a league keeps its stops gathered for bulk lookups (`compiled_geofences`), written by
/// every sync and removed by any change to what it holds; `vsh locate --fixes` reads it back
/// instead of compiling every stop again. Bytes that do not hold together are refused, never
/// followed.
@Suite struct KeptGeofencesTests {
    /// Two hunts of synthetic stops, the second's names outside ASCII.
    static func catalog(_ stops: [Stop]) -> HuntCatalog {
        twoHuntCatalog(stops) { "Café \($0.id) 🎲" }
    }

    static func gathered(_ stops: [Stop]) -> GeofenceIndex.Builder {
        var builder = GeofenceIndex.Builder()
        for stop in catalog(stops).hunts.flatMap(\.stops) { builder.add(stop) }
        return builder
    }

    @Test func theKeptBytesReadBackAsTheIndex() throws {
        let stops = syntheticStops(count: 1_200, seed: 21)
        let builder = Self.gathered(stops)
        let bytes = builder.storedBytes()
        let read = try #require(bytes.withUnsafeBytes { GeofenceIndex.Builder(stored: $0) })
        let index = GeofenceIndex(read)
        #expect(index == GeofenceIndex(builder))
        #expect(index.entries.last?.name.hasPrefix("Café ") == true)
        #expect(index.entries.last?.name.hasSuffix(" 🎲") == true)
        // No stops at all: an empty index, which covers nothing.
        let none = try #require(
            GeofenceIndex.Builder().storedBytes().withUnsafeBytes { GeofenceIndex.Builder(stored: $0) })
        #expect(GeofenceIndex(none).entries.isEmpty)
        #expect(GeofenceIndex(none).covering(latitude: 36.1, longitude: -115.1) == .covered([]))
    }

    /// Each way the bytes can fail to hold together is refused; so is every block cut short; and
    /// bytes changed at random either are refused or make an index whose lookups stay in bounds.
    @Test func bytesThatDoNotHoldTogetherAreRefused() throws {
        let stops = syntheticStops(count: 40, seed: 4)
        let good = Self.gathered(stops).storedBytes()
        func reads(_ bytes: [UInt8]) -> GeofenceIndex.Builder? {
            bytes.withUnsafeBytes { GeofenceIndex.Builder(stored: $0) }
        }
        #expect(reads(good) != nil)
        let (e, c, r, p) = (40, Int(Self.count(good, 1)), Int(Self.count(good, 2)), Int(Self.count(good, 3)))
        let coords = 28
        let boxes = coords + c * 8
        let ringStarts = boxes + e * 32
        let polygonStarts = ringStarts + r * 4
        let entryStarts = polygonStarts + p * 4
        var cases: [(String, [UInt8])] = []
        func changed(_ name: String, _ change: (inout [UInt8]) -> Void) {
            var bytes = good
            change(&bytes)
            cases.append((name, bytes))
        }
        changed("another tag") { $0[7] = UInt8(ascii: "2") }
        changed("one entry more") { Self.put(&$0, 8, UInt32(e + 1)) }
        changed("one coordinate fewer") { Self.put(&$0, 12, UInt32(c - 1)) }
        changed("a longitude off the globe") { Self.putDouble(&$0, coords + 16, 181) }
        changed("a latitude that is not a number") { Self.putDouble(&$0, coords + 8, .nan) }
        changed("a box off the globe") { Self.putDouble(&$0, boxes + 8, -91) }
        changed("a ring of an odd count") {
            Self.put(&$0, ringStarts + 4, Self.count($0, (ringStarts + 4 - 8) / 4) + 1)
        }
        changed("a ring starting before the one before") { Self.put(&$0, ringStarts + 8, 0) }
        changed("rings not starting at 0") { Self.put(&$0, ringStarts, 2) }
        changed("polygons ending past the rings") { Self.put(&$0, entryStarts - 4, UInt32(r)) }
        changed("a polygon without a ring") {
            Self.put(&$0, polygonStarts + 4, Self.count($0, (polygonStarts - 8) / 4))
        }
        changed("entries ending past the polygons") { Self.put(&$0, entryStarts + e * 4, UInt32(p)) }
        changed("a name running past the end") { Self.put(&$0, entryStarts + (e + 1) * 4 + 8, 1_000_000) }
        changed("a box the wrong way round") { Self.putDouble(&$0, boxes, 0) }
        changed("a byte more") { $0.append(0) }
        for (name, bytes) in cases { #expect(reads(bytes) == nil, "\(name)") }
        for length in stride(from: 0, to: good.count, by: 37) {
            #expect(reads(Array(good.prefix(length))) == nil, "cut to \(length) bytes")
        }
        var random = SplitMix64(seed: 99)
        var refused = 0
        for _ in 0..<2_000 {
            var bytes = good
            for _ in 0..<(1 + Int(random.next() % 3)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            guard let read = reads(bytes) else {
                refused += 1
                continue
            }
            let index = GeofenceIndex(read)
            for _ in 0..<20 {
                _ = index.covering(
                    latitude: 36.05 + random.unit() * 0.15, longitude: -115.25 + random.unit() * 0.15)
            }
        }
        #expect(refused > 100)
    }

    /// A league file in a folder of its own (the caller removes it), synced with `stops`
    /// synthetic stops in two hunts.
    static func league(stops count: Int, seed: UInt64) async throws
        -> (folder: URL, path: String, store: SpatiaLiteStore, stops: [Stop])
    {
        let folder = try TestSupport.temporaryDirectory("vsh-kept")
        do {
            let path = folder.appendingPathComponent("world.sqlite").path
            let store = try SpatiaLiteStore(path: path)
            let stops = syntheticStops(count: count, seed: seed)
            try await store.replace(with: catalog(stops))
            return (folder, path, store, stops)
        } catch {
            TestSupport.remove(folder)
            throw error
        }
    }

    static func count(_ bytes: [UInt8], _ i: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8 + i * 4, as: UInt32.self) }
    }

    static func put(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
    }

    static func putDouble(_ bytes: inout [UInt8], _ offset: Int, _ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) {
            bytes.replaceSubrange(offset..<offset + 8, with: $0)
        }
    }

    /// A sync keeps the stops gathered; a change to a stop's or hunt's place, name or geometry
    /// removes them (and lookups compile the stops as they are now); a change to anything else
    /// keeps them; the next sync writes them again.
    @Test func aLeagueKeepsItsStopsGatheredUntilTheyChange() async throws {
        let (folder, path, store, stops) = try await Self.league(stops: 300, seed: 8)
        defer { TestSupport.remove(folder) }
        func kept() async throws -> GeofenceIndex? {
            try await store.read { db in try SpatiaLiteStore.keptGeofences(db) }.map { GeofenceIndex($0) }
        }
        // The rows as they are (a store opened afresh: the first one keeps the hunts it read).
        func fromRows() async throws -> GeofenceIndex {
            GeofenceIndex(stops: try await SpatiaLiteStore(path: path).hunts().flatMap(\.hunt.stops))
        }
        #expect(try await kept() == fromRows())
        #expect(try await store.compiledIndex() == fromRows())
        for (change, removes) in [
            ("UPDATE stops SET points = points + 1", false),
            ("UPDATE hunts SET name = 'Bee'", false),
            ("UPDATE stops SET name = 'Moved' WHERE id = 's5'", true),
            (
                "UPDATE stops SET geometry_bin = (SELECT geometry_bin FROM stops WHERE id = 's7') WHERE id = 's6'",
                true
            ),
            ("UPDATE stops SET position = position + 1000 WHERE id = 's0'", true),
            ("DELETE FROM stops WHERE id = 's9'", true),
            ("UPDATE hunts SET position = 5 WHERE id = 'b-world'", true),
        ] {
            try await store.replace(with: Self.catalog(stops))
            #expect(try await kept() != nil, "\(change)")
            try await store.executeForTesting(change)
            #expect(try await kept() == nil ? removes : !removes, "\(change)")
            #expect(try await store.compiledIndex() == fromRows(), "\(change)")
        }
        // The stop renamed is found by its new name: the index follows the rows, not what was kept.
        try await store.replace(with: Self.catalog(stops))
        try await store.executeForTesting("UPDATE stops SET name = 'Renamed' WHERE id = 's3'")
        #expect(
            try await store.compiledIndex().entries.contains { $0.stopID == "s3" && $0.name == "Renamed" })
    }

    /// The kept block is read from the league's pages piece by piece: 3,000 stops (a block of
    /// hundreds of pages) read back as the index of the rows; a block cut short, with a byte
    /// changed or not a block at all is not followed, and lookups compile the stops from the rows.
    @Test func aKeptBlockInTheFileReadsBackOrIsPassedOver() async throws {
        let (folder, path, store, _) = try await Self.league(stops: 3_000, seed: 31)
        defer { TestSupport.remove(folder) }
        let rows = GeofenceIndex(stops: try await SpatiaLiteStore(path: path).hunts().flatMap(\.hunt.stops))
        func kept() async throws -> GeofenceIndex? {
            try await SpatiaLiteStore(path: path).read { db in try SpatiaLiteStore.keptGeofences(db) }
                .map { GeofenceIndex($0) }
        }
        let size = try await store.read { db in
            try Int.fetchOne(db, sql: "SELECT length(bytes) FROM compiled_geofences") ?? 0
        }
        #expect(size > 100 * 4_096)
        #expect(try await kept() == rows)
        let good = try await store.read { db in
            try Data.fetchOne(db, sql: "SELECT bytes FROM compiled_geofences") ?? Data()
        }
        var changed = [UInt8](good)
        // The rings no longer start at the first coordinate.
        Self.put(&changed, 28 + Int(Self.count(changed, 1)) * 8 + Int(Self.count(changed, 0)) * 32, 2)
        for (name, bytes) in [
            ("cut short", Data(good.prefix(good.count - 1))), ("a ring start changed", Data(changed)),
            ("not a block", Data("VSHGIX01".utf8)), ("empty", Data()),
        ] {
            try await store.executeForTesting("DELETE FROM compiled_geofences")
            try await store.write { db in
                try db.execute(sql: "INSERT INTO compiled_geofences(bytes) VALUES (?)", arguments: [bytes])
            }
            #expect(try await kept() == nil, "\(name)")
            #expect(try await SpatiaLiteStore(path: path).compiledIndex() == rows, "\(name)")
        }
    }

    /// A league from before the table gets it, filled, when it is opened.
    @Test func aLeagueFromBeforeGetsItsStopsGatheredWhenOpened() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-kept")
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("world.sqlite").path
        let stops = syntheticStops(count: 200, seed: 12)
        try await SpatiaLiteStore(path: path).replace(with: Self.catalog(stops))
        let old = try SpatiaLiteStore(path: path)
        try await old.executeForTesting(
            """
            DROP TRIGGER compiled_geofences_stop_added; DROP TRIGGER compiled_geofences_stop_removed;
            DROP TRIGGER compiled_geofences_stop_changed; DROP TRIGGER compiled_geofences_hunt_added;
            DROP TRIGGER compiled_geofences_hunt_removed; DROP TRIGGER compiled_geofences_hunt_changed;
            DROP TABLE compiled_geofences;
            DELETE FROM grdb_migrations WHERE identifier = 'v39-compiled-geofences'
            """)
        let reopened = try SpatiaLiteStore(path: path)
        let kept = try await reopened.read { db in try SpatiaLiteStore.keptGeofences(db) }
        let rows = GeofenceIndex(stops: try await reopened.hunts().flatMap(\.hunt.stops))
        #expect(kept.map { GeofenceIndex($0) } == rows)
    }
}
