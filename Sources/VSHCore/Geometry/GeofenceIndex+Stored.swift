/// The stops a `GeofenceIndex.Builder` gathered, as one block of bytes a league keeps beside its
/// stops (`vsh locate --fixes` reads it back instead of compiling every stop's geofence again):
/// the flat arrays as they are in memory, so reading them is a copy.
///
/// Layout, little-endian: the 8-byte tag `VSHGIX01`; five UInt32 counts (entries E, coordinates
/// C, ring starts R, polygon starts P, bytes of text T); C Float64 coordinates; 4E Float64
/// boxes; R, P and E + 1 Int32 starts; 3E UInt32 lengths (hunt id, stop id, name of each
/// entry); T bytes of UTF-8 text.
extension GeofenceIndex.Builder {
    static let storedTag: [UInt8] = Array("VSHGIX01".utf8)

    /// The gathered stops as bytes (`init?(stored:)` reads them back).
    public func storedBytes() -> [UInt8] {
        var text: [UInt8] = []
        var lengths: [UInt32] = []
        lengths.reserveCapacity(entries.count * 3)
        for entry in entries {
            for part in [entry.huntID, entry.stopID, entry.name] {
                let before = text.count
                text.append(contentsOf: part.utf8)
                lengths.append(UInt32(text.count - before))
            }
        }
        var bytes = Self.storedTag
        let counts = [entries.count, coords.count, ringStart.count, polygonStart.count, text.count]
        bytes.reserveCapacity(
            28 + (coords.count + boxes.count) * 8
                + (ringStart.count + polygonStart.count + entryStart.count + lengths.count) * 4 + text.count)
        for count in counts { Self.append(UInt32(count).littleEndian, to: &bytes) }
        for value in coords { Self.append(value.bitPattern.littleEndian, to: &bytes) }
        for value in boxes { Self.append(value.bitPattern.littleEndian, to: &bytes) }
        for array in [ringStart, polygonStart, entryStart] {
            for value in array { Self.append(value.littleEndian, to: &bytes) }
        }
        for value in lengths { Self.append(value.littleEndian, to: &bytes) }
        bytes.append(contentsOf: text)
        return bytes
    }

    /// Whether `values`, as runs of `pairs` (longitude, latitude) pairs, are positions on the
    /// globe: what the grid's arithmetic relies on.
    private static func inRange(_ values: [Double], pairs: Int) -> Bool {
        values.withUnsafeBufferPointer { v in
            var ok = v.count % (2 * pairs) == 0
            var i = 0
            while ok && i < v.count {
                ok = (-180...180).contains(v[i]) && (-90...90).contains(v[i + 1])
                i += 2
            }
            return ok
        }
    }

    /// Whether each box's least corner comes first (the grid's cell ranges rely on it).
    private static func cornersInOrder(_ boxes: [Double]) -> Bool {
        var i = 0
        while i + 3 < boxes.count {
            guard boxes[i] <= boxes[i + 2], boxes[i + 1] <= boxes[i + 3] else { return false }
            i += 4
        }
        return true
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// The stops of `storedBytes()`, or nil when the bytes are not such a block or do not hold
    /// together (a start out of order or past its array, a ring of an odd count, a polygon with
    /// no ring, a coordinate off the globe, a box whose corners are the wrong way round): the caller then compiles the stops again.
    /// Every index the lookups follow is checked here, so no bytes can send them out of bounds.
    public init?(stored bytes: UnsafeRawBufferPointer) {
        self.init(storedCount: bytes.count) { destination, offset in
            guard offset >= 0, offset <= bytes.count - destination.count else { return false }
            destination.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + destination.count]))
            return true
        }
    }

    /// The same as `init?(stored:)` for a block of `storedCount` bytes that `read` copies piece by
    /// piece (`read(destination, offset)` fills `destination` with the bytes from `offset`, or
    /// says false): each array is read straight into its own memory. A league's block, in pages
    /// of its file, is then copied once, not first gathered whole (2 MB among 5,000 stops).
    public init?(storedCount: Int, read: (UnsafeMutableRawBufferPointer, Int) -> Bool) {
        self.init()
        #if _endian(big)
            return nil
        #else
            guard storedCount >= 28 else { return nil }
            var head = [UInt8](repeating: 0, count: 28)
            guard head.withUnsafeMutableBytes({ read($0, 0) }), head.prefix(8).elementsEqual(Self.storedTag)
            else { return nil }
            func count(_ i: Int) -> Int {
                head.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 8 + i * 4, as: UInt32.self)) }
            }
            let (e, c, r, p, t) = (count(0), count(1), count(2), count(3), count(4))
            // Sizes from 32-bit counts cannot overflow an Int; the total must be the block's.
            let sizes = [c * 8, e * 4 * 8, r * 4, p * 4, (e + 1) * 4, e * 3 * 4, t]
            guard sizes.reduce(28, +) == storedCount, r >= 1, p >= 1, c <= Int(Int32.max) else { return nil }
            var offset = 28
            var complete = true
            func take<T>(_ n: Int, _: T.Type) -> [T] {
                defer { offset += n * MemoryLayout<T>.size }
                return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
                    // Empty when the read fails (the block is then refused).
                    let whole = read(UnsafeMutableRawBufferPointer(buffer), offset)
                    complete = complete && whole
                    initialized = whole ? n : 0
                }
            }
            let coords = take(c, Double.self)
            let boxes = take(e * 4, Double.self)
            let ringStart = take(r, Int32.self)
            let polygonStart = take(p, Int32.self)
            let entryStart = take(e + 1, Int32.self)
            let lengths = take(e * 3, UInt32.self)
            let text = take(t, UInt8.self)
            guard complete else { return nil }
            // Each array of starts begins at 0, never falls, and ends at the size of what it
            // divides; rings hold whole pairs and polygons at least one ring (their shell).
            func ordered(_ starts: [Int32], endingAt end: Int, strictly: Bool) -> Bool {
                guard starts.first == 0, Int(starts[starts.count - 1]) == end else { return false }
                for i in 1..<max(1, starts.count) {
                    let step = starts[i] - starts[i - 1]
                    if step < 0 || (strictly && step == 0) { return false }
                }
                return true
            }
            guard ordered(ringStart, endingAt: c, strictly: false), ringStart.allSatisfy({ $0 % 2 == 0 }),
                ordered(polygonStart, endingAt: r - 1, strictly: true),
                ordered(entryStart, endingAt: p - 1, strictly: false),
                Self.inRange(coords, pairs: 1), Self.inRange(boxes, pairs: 2),
                Self.cornersInOrder(boxes)
            else { return nil }
            var entries: [GeofenceIndex.Entry] = []
            entries.reserveCapacity(e)
            var at = 0
            var parts: [String] = []
            for length in lengths {
                let end = at + Int(length)
                guard end <= text.count else { return nil }
                parts.append(
                    text.withUnsafeBytes {
                        String(decoding: UnsafeRawBufferPointer(rebasing: $0[at..<end]), as: UTF8.self)
                    })
                at = end
                if parts.count == 3 {
                    entries.append(GeofenceIndex.Entry(huntID: parts[0], stopID: parts[1], name: parts[2]))
                    parts.removeAll(keepingCapacity: true)
                }
            }
            guard at == text.count else { return nil }
            (self.entries, self.coords, self.boxes) = (entries, coords, boxes)
            (self.ringStart, self.polygonStart, self.entryStart) = (ringStart, polygonStart, entryStart)
        #endif
    }
}
