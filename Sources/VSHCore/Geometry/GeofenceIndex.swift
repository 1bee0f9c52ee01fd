/// An in-memory index of stop geofences for bulk lookups (`vsh locate
/// --fixes`, replays): a uniform grid over the stops' extent, each cell
/// listing the stops whose bounding box meets it, and an exact point-in-
/// polygon test on the candidates.
///
/// **Boundary-inclusive**, like `ST_Covers`: a position on an edge or vertex
/// is covered, one strictly inside a hole is not. Coordinates are planar
/// longitude/latitude, as SpatiaLite and GEOS treat them.
///
/// **Exact or deferred.** The crossing test needs only the sign of an
/// orientation determinant; it is computed in doubles with Shewchuk's error
/// bound (orient2d, "Adaptive Precision Floating-Point Arithmetic", 1997). When
/// the bound cannot certify the sign (the position lies within rounding
/// distance of an edge) the answer is `.undecided`, and the caller asks
/// SpatiaLite, which stays the authority. A test holds the two to the same answers.
public struct GeofenceIndex: Equatable, Sendable {
    /// One stop in the index.
    public struct Entry: Equatable, Sendable {
        /// The hunt of the stop.
        public let huntID: String
        /// The stop's id.
        public let stopID: String
        /// The stop's name.
        public let name: String
    }

    /// A covering answer: the entries, or undecided (near an edge: ask the store).
    public enum Answer: Equatable, Sendable {
        /// Indexes into `entries` of the stops covering the position, in catalog order.
        case covered([Int])
        /// The position is within rounding distance of an edge: ask the database.
        case undecided
    }

    /// The stops, in catalog order.
    public let entries: [Entry]
    // Geometry in flat arrays (no reference counting in the lookup loop):
    // coordinates x, y, x, y, ...; ring r spans coords[ringStart[r]..<ringStart[r + 1]];
    // polygon p has rings polygonStart[p]..<polygonStart[p + 1], the first its shell;
    // entry e has polygons entryStart[e]..<entryStart[e + 1] and a bounding box.
    private let coords: [Double]
    private let ringStart: [Int32]
    private let polygonStart: [Int32]
    private let entryStart: [Int32]
    private let boxes: [Double]  // minX, minY, maxX, maxY per entry
    private let originX, originY, cellWidth, cellHeight: Double
    private let columns, rows: Int
    /// Cell → entry indexes, flattened: `cellStart[c]..<cellStart[c + 1]` in `cellEntries`.
    private let cellStart: [Int32]
    private let cellEntries: [Int32]

    /// Builds the index from stops in catalog order (hunt order, then stop order).
    public init(stops: [Stop]) {
        var builder = Builder()
        for stop in stops { builder.add(stop) }
        self.init(builder)
    }

    /// Flat geometry gathered stop by stop, in catalog order, for `init(_:)` to index: from
    /// `Stop`s, or straight from their stored binary geofences (no `Stop` or `Geofence` built
    /// for 50,000 stops that are only looked up).
    public struct Builder: Sendable {
        var entries: [Entry] = []
        var coords: [Double] = []
        var ringStart: [Int32] = [0]
        var polygonStart: [Int32] = [0]
        var entryStart: [Int32] = [0]
        var boxes: [Double] = []
        var box = (
            minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity
        )

        /// Stops expected in all (0: unknown): once 1,024 are in, the arrays are given room for
        /// them all at the coordinates a stop has so far on average (a fifth more), instead of
        /// growing by doubling (for 50,000 stops that copied 20 MB of coordinates about ten
        /// times, each time into fresh memory the kernel had to map page by page).
        let expectedStops: Int

        /// No stops yet; `expectedStops`, when known, how many there will be.
        public init(expectedStops: Int = 0) {
            self.expectedStops = expectedStops
        }

        /// Adds a stop.
        public mutating func add(_ stop: Stop) {
            for polygon in stop.geofence.polygons {
                for ring in polygon.rings {
                    for p in ring.positions { append(x: p.longitude, y: p.latitude) }
                    ringStart.append(Int32(coords.count))
                }
                polygonStart.append(Int32(ringStart.count - 1))
            }
            endStop(Entry(huntID: stop.huntID, stopID: stop.id, name: stop.name))
        }

        /// Adds a stop from its binary geofence (`HuntFile.storedBytes`); false, with nothing
        /// added, when the bytes are not a valid geofence (the caller reads the stop another way).
        public mutating func add(
            huntID: String, stopID: String, name: String, storedBytes: UnsafeRawBufferPointer
        )
            -> Bool
        {
            // The walk checks all of the bytes before it reports a part: a damaged geofence adds nothing.
            let kind = HuntFile.walkStored(storedBytes) { part in
                switch part {
                case .ring(let pairs, let count):
                    appendRing(pairs, count: count)
                    ringStart.append(Int32(coords.count))
                case .polygonEnd:
                    polygonStart.append(Int32(ringStart.count - 1))
                }
            }
            guard kind != nil else { return false }
            endStop(Entry(huntID: huntID, stopID: stopID, name: name))
            return true
        }

        mutating func append(x: Double, y: Double) {
            coords.append(x)
            coords.append(y)
            box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
        }

        /// `count` little-endian x, y pairs, appended at once.
        mutating func appendRing(_ pairs: UnsafeRawBufferPointer, count: Int) {
            let start = coords.count
            coords.append(contentsOf: repeatElement(0, count: count * 2))
            var (minX, minY, maxX, maxY) = box
            coords.withUnsafeMutableBufferPointer { buffer in
                for i in 0..<count {
                    let (x, y) = (pairs.double(at: i * 16), pairs.double(at: i * 16 + 8))
                    buffer[start + i * 2] = x
                    buffer[start + i * 2 + 1] = y
                    minX = min(minX, x)
                    minY = min(minY, y)
                    maxX = max(maxX, x)
                    maxY = max(maxY, y)
                }
            }
            box = (minX, minY, maxX, maxY)
        }

        /// Room for `expectedStops`, at 1,024 stops in (see `expectedStops`).
        mutating func reserveForTheRest() {
            let (done, expected) = (entries.count, expectedStops)
            guard done == 1_024, expected > done else { return }
            func room(_ count: Int) -> Int { Int(Double(count) / Double(done) * Double(expected) * 1.2) }
            coords.reserveCapacity(room(coords.count))
            ringStart.reserveCapacity(room(ringStart.count))
            polygonStart.reserveCapacity(room(polygonStart.count))
            entryStart.reserveCapacity(expected + 1)
            boxes.reserveCapacity(expected * 4)
            entries.reserveCapacity(expected)
        }

        mutating func endStop(_ entry: Entry) {
            entryStart.append(Int32(polygonStart.count - 1))
            boxes.append(box.minX)
            boxes.append(box.minY)
            boxes.append(box.maxX)
            boxes.append(box.maxY)
            box = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
            entries.append(entry)
            reserveForTheRest()
        }
    }

    /// The index of what `builder` gathered.
    public init(_ builder: Builder) {
        let (entries, boxes) = (builder.entries, builder.boxes)
        (self.coords, self.ringStart, self.polygonStart, self.entryStart, self.boxes) = (
            builder.coords, builder.ringStart, builder.polygonStart, builder.entryStart, boxes
        )
        self.entries = entries
        guard !entries.isEmpty else {
            (originX, originY, cellWidth, cellHeight, columns, rows) = (0, 0, 1, 1, 1, 1)
            cellStart = [0, 0]
            cellEntries = []
            return
        }
        let count = entries.count
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for i in 0..<count {
            minX = min(minX, boxes[i * 4])
            minY = min(minY, boxes[i * 4 + 1])
            maxX = max(maxX, boxes[i * 4 + 2])
            maxY = max(maxY, boxes[i * 4 + 3])
        }
        // Cells about as large as a typical stop (the median of at most 1,025 stops spread over
        // the catalog: sorting all 50,000 widths and heights was a twentieth of opening them),
        // and no more than ~4 cells a stop on average.
        let step = max(1, count / 1_024)
        var widths: [Double] = []
        var heights: [Double] = []
        for i in stride(from: 0, to: count, by: step) {
            widths.append(boxes[i * 4 + 2] - boxes[i * 4])
            heights.append(boxes[i * 4 + 3] - boxes[i * 4 + 1])
        }
        widths.sort()
        heights.sort()
        let typicalW = max(widths[widths.count / 2], 1e-7)
        let typicalH = max(heights[heights.count / 2], 1e-7)
        let spanX = max(maxX - minX, typicalW)
        let spanY = max(maxY - minY, typicalH)
        let budget = Double(max(64, entries.count * 4))
        var cw = typicalW
        var ch = typicalH
        while (spanX / cw) * (spanY / ch) > budget * 16 {
            cw *= 2
            ch *= 2
        }
        let columns = min(1 << 14, max(1, Int((spanX / cw).rounded(.up))))
        let rows = min(1 << 14, max(1, Int((spanY / ch).rounded(.up))))
        cw = spanX / Double(columns) * (1 + 1e-12)
        ch = spanY / Double(rows) * (1 + 1e-12)
        (originX, originY, cellWidth, cellHeight, self.columns, self.rows) = (
            minX, minY, cw, ch, columns, rows
        )
        // Count, then fill (counting sort): cells list entries in catalog order.
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        func cellRange(_ e: Int) -> (Int, Int, Int, Int) {
            let c0 = max(0, min(columns - 1, Int(((boxes[e * 4] - minX) / cw).rounded(.down))))
            let c1 = max(0, min(columns - 1, Int(((boxes[e * 4 + 2] - minX) / cw).rounded(.down))))
            let r0 = max(0, min(rows - 1, Int(((boxes[e * 4 + 1] - minY) / ch).rounded(.down))))
            let r1 = max(0, min(rows - 1, Int(((boxes[e * 4 + 3] - minY) / ch).rounded(.down))))
            return (c0, c1, r0, r1)
        }
        for e in 0..<count {
            let (c0, c1, r0, r1) = cellRange(e)
            for r in r0...r1 { for c in c0...c1 { counts[r * columns + c + 1] += 1 } }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var list = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for index in 0..<count {
            let (c0, c1, r0, r1) = cellRange(index)
            for r in r0...r1 {
                for c in c0...c1 {
                    list[Int(fill[r * columns + c])] = Int32(index)
                    fill[r * columns + c] += 1
                }
            }
        }
        cellStart = counts
        cellEntries = list
    }

    /// The stops covering a position, or `.undecided` near an edge.
    public func covering(latitude y: Double, longitude x: Double) -> Answer {
        var found: [Int] = []
        switch covering(latitude: y, longitude: x, into: &found) {
        case true: return .covered(found)
        case false: return .undecided
        }
    }

    /// Allocation-free form: appends the covering entries to `found` (cleared
    /// first) and returns false when the answer is undecided.
    public func covering(latitude y: Double, longitude x: Double, into found: inout [Int]) -> Bool {
        found.removeAll(keepingCapacity: true)
        let fc = (x - originX) / cellWidth
        let fr = (y - originY) / cellHeight
        // Outside the grid (or NaN): no stop's box reaches there.
        guard fc >= 0, fr >= 0, fc <= Double(columns), fr <= Double(rows) else { return true }
        return probe(cell: min(rows - 1, Int(fr)) * columns + min(columns - 1, Int(fc)), x, y, &found)
    }

    /// The bytes of the stops' coordinates: beyond the processor's caches, lookups in cell order pay.
    public var geometryBytes: Int { coords.count * MemoryLayout<Double>.size }

    /// The grid cell (row-major) a position falls in, or -1 outside the grid: bulk callers look
    /// positions up in cell order, so that a cell's stops are read from memory once for many.
    public func cell(latitude y: Double, longitude x: Double) -> Int {
        let fc = (x - originX) / cellWidth
        let fr = (y - originY) / cellHeight
        guard fc >= 0, fr >= 0, fc <= Double(columns), fr <= Double(rows) else { return -1 }
        return min(rows - 1, Int(fr)) * columns + min(columns - 1, Int(fc))
    }

    /// Whether the box between two positions meets any stop's bounding box:
    /// when it does not, the straight segment between them crosses no stop.
    public func mayCross(_ ay: Double, _ ax: Double, _ by: Double, _ bx: Double) -> Bool {
        let x0 = min(ax, bx)
        let x1 = max(ax, bx)
        let y0 = min(ay, by)
        let y1 = max(ay, by)
        let c0 = max(0, Int(((x0 - originX) / cellWidth).rounded(.down)))
        let c1 = min(columns - 1, Int(((x1 - originX) / cellWidth).rounded(.down)))
        let r0 = max(0, Int(((y0 - originY) / cellHeight).rounded(.down)))
        let r1 = min(rows - 1, Int(((y1 - originY) / cellHeight).rounded(.down)))
        guard c0 <= c1, r0 <= r1 else { return false }
        // A long segment (a teleport) spans many cells: then just say yes.
        if (c1 - c0 + 1) * (r1 - r0 + 1) > 256 { return true }
        for r in r0...r1 {
            for c in c0...c1 {
                let cell = r * columns + c
                for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    let e = Int(cellEntries[k]) * 4
                    if boxes[e + 2] >= x0 && boxes[e] <= x1 && boxes[e + 3] >= y0 && boxes[e + 1] <= y1 {
                        return true
                    }
                }
            }
        }
        return false
    }

    private func probe(cell: Int, _ x: Double, _ y: Double, _ found: inout [Int]) -> Bool {
        coords.withUnsafeBufferPointer { c in
            boxes.withUnsafeBufferPointer { b in
                cellEntries.withUnsafeBufferPointer { list in
                    for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                        let index = Int(list[k])
                        guard x >= b[index * 4], x <= b[index * 4 + 2], y >= b[index * 4 + 1],
                            y <= b[index * 4 + 3]
                        else { continue }
                        switch covers(entry: index, c, x, y) {
                        case .some(true): found.append(index)
                        case .some(false): break
                        case .none: return false
                        }
                    }
                    return true
                }
            }
        }
    }

    /// Whether an entry's polygons cover (x, y): true, false, or nil when a sign is uncertain.
    private func covers(entry: Int, _ c: UnsafeBufferPointer<Double>, _ x: Double, _ y: Double) -> Bool? {
        for polygon in Int(entryStart[entry])..<Int(entryStart[entry + 1]) {
            let firstRing = Int(polygonStart[polygon])
            let endRing = Int(polygonStart[polygon + 1])
            let shellStart = Int(ringStart[firstRing])
            let shellEnd = Int(ringStart[firstRing + 1])
            guard let shell = Self.location(UnsafeBufferPointer(rebasing: c[shellStart..<shellEnd]), x, y)
            else { return nil }
            if shell == .outside { continue }
            if shell == .boundary { return true }
            var inHole = false
            for ring in (firstRing + 1)..<endRing {
                let r0 = Int(ringStart[ring])
                let r1 = Int(ringStart[ring + 1])
                guard let place = Self.location(UnsafeBufferPointer(rebasing: c[r0..<r1]), x, y) else {
                    return nil
                }
                if place == .boundary { return true }
                if place == .inside {
                    inHole = true
                    break
                }
            }
            if !inHole { return true }
        }
        return false
    }

    enum Location { case inside, outside, boundary }

    /// Where (x, y) lies relative to one closed ring: by the winding number,
    /// with exact (or refused) orientation signs.
    static func location(_ ring: UnsafeBufferPointer<Double>, _ x: Double, _ y: Double) -> Location? {
        var winding = 0
        var i = 0
        let n = ring.count - 2
        while i < n {
            let ax = ring[i]
            let ay = ring[i + 1]
            let bx = ring[i + 2]
            let by = ring[i + 3]
            i += 2
            // Quick reject: the edge is entirely above, below or to the left.
            if (ay > y && by > y) || (ay < y && by < y) || (ax < x && bx < x) {
                continue
            }
            guard let side = orientation(ax, ay, bx, by, x, y) else { return nil }
            if side == 0 {
                // Collinear: on the edge when between its ends.
                if x >= min(ax, bx) && x <= max(ax, bx) && y >= min(ay, by) && y <= max(ay, by) {
                    return .boundary
                }
                continue
            }
            if ay <= y {
                if by > y && side > 0 { winding += 1 }
            } else if by <= y && side < 0 {
                winding -= 1
            }
        }
        return winding != 0 ? .inside : .outside
    }

    /// The sign of the orientation of (c) relative to the line a→b: +1 left,
    /// -1 right, 0 on it; nil when doubles cannot certify it (Shewchuk's
    /// orient2d error bound, ccwerrboundA = (3 + 16ε)ε).
    @inline(__always)
    static func orientation(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int? {
        let detLeft = (ax - cx) * (by - cy)
        let detRight = (ay - cy) * (bx - cx)
        let det = detLeft - detRight
        let bound = 3.3306690738754716e-16 * (abs(detLeft) + abs(detRight))
        if det > bound { return 1 }
        if -det > bound { return -1 }
        // Exactly zero only when both products are exact and equal: a point on the line
        // through two vertices it shares coordinates with (vertices, axis-parallel edges).
        if detLeft == 0 && detRight == 0 { return 0 }
        return nil
    }
}
