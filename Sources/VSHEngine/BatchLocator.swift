import Foundation
public import VSHCore

/// Looks up a file of fixes (`lat,lon` a line) against every stop: the work of
/// `vsh locate --fixes`, streamed: one fix read, looked up and answered at a time, or, among
/// stops whose geometry outgrows the processor's caches, 65,536 fixes read, looked up in
/// grid-cell order and answered in file order at a time.
///
/// Lookups use an in-memory `GeofenceIndex` compiled from the store; a fix within
/// rounding distance of an edge is asked of the store (`ST_Covers`), so the answers
/// are the store's. Blank lines, `#` comments and one header line before the first
/// fix are skipped.
public struct BatchLocator: Sendable {
    /// The stops' bounding boxes, which pick the candidates of each fix.
    public let index: GeofenceIndex
    /// The store that decides the fixes near an edge.
    public let store: any HuntStore

    /// Looks fixes up in cell order when the stops' coordinates take more bytes than this.
    let cellOrderAbove: Int
    /// How many fixes are read, then looked up in cell order and answered, at a time.
    let batchSize: Int

    /// - Parameters:
    ///   - index: every stop, in catalog order (`GeofenceIndex(stops:)`).
    ///   - store: answers the fixes the index cannot decide.
    ///   - cellOrderAbove: the size of the stops' coordinates (`geometryBytes`) from which fixes
    ///     are looked up in cell order: 8 MB (measured on 1,000,000 fixes: in cell order 15 %
    ///     faster among 50,000 stops, 19 MB, and 30 % slower among 5,000, 2 MB, where sorting
    ///     costs more than it saves).
    ///   - batchSize: fixes a batch in cell order (1-65,536).
    public init(
        index: GeofenceIndex, store: any HuntStore, cellOrderAbove: Int = 8 << 20, batchSize: Int = 1 << 16
    ) {
        self.index = index
        self.store = store
        self.cellOrderAbove = cellOrderAbove
        self.batchSize = min(max(1, batchSize), 1 << 16)
    }

    /// Reads `path` and calls `emit(line, huntID, stopID)` for every stop covering each fix,
    /// in file order, then in catalog order for one fix.
    /// - Throws: `FixFileError` naming the file and line of the first line that is not a fix
    ///   or is out of range (exit 65); `FileAccessError` when the file cannot be opened (66).
    public func locate(path: String, emit: (Int, String, String) -> Void) async throws {
        let reader = try LineReader(path: path)
        var sawData = false
        var batch = Batch()
        var found: [Int] = []
        let inCellOrder = index.geometryBytes > cellOrderAbove
        while let line = reader.next() {
            guard let (lat, lon) = Self.parse(line) else {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                // A header line ("lat,lon") is allowed before the first fix.
                if !sawData && text.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                    sawData = true
                    continue
                }
                try await answer(&batch, emit)
                throw FixFileError.notAFix(file: path, line: reader.lineNumber)
            }
            sawData = true
            guard abs(lat) <= 90, abs(lon) <= 180 else {
                try await answer(&batch, emit)
                throw FixFileError.outOfRange(file: path, line: reader.lineNumber)
            }
            guard inCellOrder else {
                // Geometry that fits in the caches: each fix at once (sorting would cost more).
                if index.covering(latitude: lat, longitude: lon, into: &found) {
                    for i in found {
                        emit(reader.lineNumber, index.entries[i].huntID, index.entries[i].stopID)
                    }
                } else {
                    for stop in try await store.stops(covering: Coordinate(unchecked: lat, lon), inHunt: nil)
                    {
                        emit(reader.lineNumber, stop.huntID, stop.stopID)
                    }
                }
                continue
            }
            batch.add(lat, lon, line: reader.lineNumber, cell: index.cell(latitude: lat, longitude: lon))
            if batch.count == batchSize { try await answer(&batch, emit) }
        }
        try await answer(&batch, emit)
    }

    /// Fixes read but not yet answered.
    struct Batch {
        var lats: [Double] = []
        var lons: [Double] = []
        var lines: [Int] = []
        /// The cell in the high bits, the fix's place in the batch in the low 16: sorted, the lookup order.
        var keys: [UInt64] = []
        var count: Int { lats.count }

        mutating func add(_ lat: Double, _ lon: Double, line: Int, cell: Int) {
            keys.append(UInt64(bitPattern: Int64(cell + 1)) << 16 | UInt64(lats.count))
            lats.append(lat)
            lons.append(lon)
            lines.append(line)
        }
    }

    /// Answers a batch in file order, having looked its fixes up in cell order (the stops of a
    /// cell are then read from memory once for many fixes: 50,000 stops' geometry does not fit
    /// in the processor's caches).
    private func answer(_ batch: inout Batch, _ emit: (Int, String, String) -> Void) async throws {
        let n = batch.count
        guard n > 0 else { return }
        Self.radixSort(&batch.keys)
        // Per fix: -2 undecided (ask the store), -1 nothing, else its first covering entry; the
        // rare second and later entries aside.
        var first = [Int32](repeating: -1, count: n)
        var more: [Int: [Int]] = [:]
        var found: [Int] = []
        for key in batch.keys {
            let i = Int(key & 0xFFFF)
            if index.covering(latitude: batch.lats[i], longitude: batch.lons[i], into: &found) {
                if let entry = found.first {
                    first[i] = Int32(entry)
                    if found.count > 1 { more[i] = Array(found.dropFirst()) }
                }
            } else {
                first[i] = -2
            }
        }
        for i in 0..<n {
            switch first[i] {
            case -1: continue
            case -2:
                let position = Coordinate(unchecked: batch.lats[i], batch.lons[i])
                for stop in try await store.stops(covering: position, inHunt: nil) {
                    emit(batch.lines[i], stop.huntID, stop.stopID)
                }
            case let entry:
                emit(batch.lines[i], index.entries[Int(entry)].huntID, index.entries[Int(entry)].stopID)
                if !more.isEmpty, let others = more[i] {
                    for e in others { emit(batch.lines[i], index.entries[e].huntID, index.entries[e].stopID) }
                }
            }
        }
        batch = Batch()
    }

    /// Sorts keys by their bits above the low 16 (the cell), keeping the order of equal ones:
    /// least significant digit first, 11 bits a pass, as many passes as the largest key needs
    /// (the standard library's merge sort was a twentieth of a run).
    static func radixSort(_ keys: inout [UInt64]) {
        guard let largest = keys.max(), keys.count > 1 else { return }
        var shift: UInt64 = 16
        var other = [UInt64](repeating: 0, count: keys.count)
        while largest >> shift != 0 {
            var counts = [Int](repeating: 0, count: 2049)
            for key in keys { counts[Int((key >> shift) & 2047) + 1] += 1 }
            for d in 1..<2049 { counts[d] += counts[d - 1] }
            for key in keys {
                let d = Int((key >> shift) & 2047)
                other[counts[d]] = key
                counts[d] += 1
            }
            swap(&keys, &other)
            shift += 11
        }
    }

    /// `lat,lon[,...]` from bytes, without building strings.
    static func parse(_ line: ArraySlice<UInt8>) -> (Double, Double)? {
        guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        var end = line.endIndex
        if let second = line[(comma + 1)...].firstIndex(of: UInt8(ascii: ",")) { end = second }
        guard let lat = DecimalNumber.parse(line[line.startIndex..<comma]),
            let lon = DecimalNumber.parse(line[(comma + 1)..<end])
        else { return nil }
        return (lat, lon)
    }
}

/// A line of a fixes file that is not a fix.
public enum FixFileError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// Not `lat,lon` in decimal degrees.
    case notAFix(file: String, line: Int)
    /// A latitude beyond ±90 or a longitude beyond ±180.
    case outOfRange(file: String, line: Int)

    /// `file:line: problem`.
    public var description: String {
        switch self {
        case .notAFix(let file, let line): return "\(file):\(line): expected \"lat,lon\" in decimal degrees"
        case .outOfRange(let file, let line): return "\(file):\(line): latitude or longitude out of range"
        }
    }

    /// Bad input data.
    public var errorKind: ErrorKind { .invalidData }
}
