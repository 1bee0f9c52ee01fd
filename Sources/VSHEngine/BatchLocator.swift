import Foundation
public import VSHCore

/// Looks up a file of fixes (`lat,lon` a line) against every stop: the work of
/// `vsh locate --fixes`, streamed: one fix read, looked up and answered at a time, or, among
/// stops whose geometry outgrows the processor's caches, 65,536 fixes read, looked up in
/// grid-cell order and answered in file order at a time. A long file's fixes are read in batches
/// and looked up on a second thread while this one reads the next and answers, in file order.
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
    /// Files of at least this many bytes are looked up on a second thread while this one reads
    /// and answers (nil: never).
    let twoThreadsFrom: Int?

    /// - Parameters:
    ///   - index: every stop, in catalog order (`GeofenceIndex(stops:)`).
    ///   - store: answers the fixes the index cannot decide.
    ///   - cellOrderAbove: the size of the stops' coordinates (`geometryBytes`) from which fixes
    ///     are looked up in cell order: 8 MB (measured on 1,000,000 fixes: in cell order 15 %
    ///     faster among 50,000 stops, 19 MB, and 30 % slower among 5,000, 2 MB, where sorting
    ///     costs more than it saves).
    ///   - batchSize: fixes a batch in cell order (1-65,536).
    ///   - twoThreadsFrom: the size of a file of fixes from which they are looked up on a second
    ///     thread (`twoThreadsByDefault`); nil: never.
    public init(
        index: GeofenceIndex, store: any HuntStore, cellOrderAbove: Int = 8 << 20, batchSize: Int = 1 << 16,
        twoThreadsFrom: Int? = BatchLocator.twoThreadsByDefault
    ) {
        self.index = index
        self.store = store
        self.cellOrderAbove = cellOrderAbove
        self.batchSize = min(max(1, batchSize), 1 << 16)
        self.twoThreadsFrom = twoThreadsFrom
    }

    /// 1 MiB on a machine of more than one core, else nil.
    public static var twoThreadsByDefault: Int? {
        ProcessInfo.processInfo.activeProcessorCount > 1 ? 1 << 20 : nil
    }

    /// Reads `path` and calls `emit(line, huntID, stopID)` for every stop covering each fix,
    /// in file order, then in catalog order for one fix.
    /// - Throws: `FixFileError` naming the file and line of the first line that is not a fix
    ///   or is out of range (exit 65); `FileAccessError` when the file cannot be opened (66).
    public func locate(path: String, emit: (Int, String, String) -> Void) async throws {
        let reader = try LineReader(path: path)
        var sawData = false
        var found: [Int] = []
        let inCellOrder = index.geometryBytes > cellOrderAbove
        // On two threads: batches read and parsed here, looked up there, answered here in order.
        let pipe =
            twoThreadsFrom.map { reader.size >= $0 } == true
            ? LookupPipe(index: index, inCellOrder: inCellOrder) : nil
        defer { pipe?.close() }
        let size = pipe != nil ? (inCellOrder ? batchSize : LookupPipe.batchSize) : batchSize
        var batch = Batch()
        /// Answers what was read: all of it, or (`all` false) what is looked up already.
        func answerRead(all: Bool) async throws {
            guard let pipe else { return try await answer(&batch, emit) }
            if all || batch.count == size {
                if batch.count > 0 { pipe.submit(batch) }
                batch = Batch()
            }
            while pipe.answered < pipe.submitted {
                let wait = all || pipe.submitted - pipe.answered >= LookupPipe.inFlight
                guard let (looked, answers) = pipe.take(wait: wait) else { return }
                try await answer(looked, answers, emit)
            }
        }
        while let line = reader.next() {
            guard let (lat, lon) = Self.parse(line) else {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                // A header line ("lat,lon") is allowed before the first fix.
                if !sawData && text.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                    sawData = true
                    continue
                }
                try await answerRead(all: true)
                throw FixFileError.notAFix(file: path, line: reader.lineNumber)
            }
            sawData = true
            guard abs(lat) <= 90, abs(lon) <= 180 else {
                try await answerRead(all: true)
                throw FixFileError.outOfRange(file: path, line: reader.lineNumber)
            }
            guard inCellOrder || pipe != nil else {
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
            batch.add(
                lat, lon, line: reader.lineNumber,
                cell: inCellOrder ? index.cell(latitude: lat, longitude: lon) : 0)
            if batch.count == size { try await answerRead(all: false) }
        }
        try await answerRead(all: true)
    }

    /// Fixes read but not yet answered.
    struct Batch: Sendable {
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

    /// A batch's fixes looked up: per fix, -2 undecided (the store is asked), -1 nothing, else
    /// its first covering entry; the rare second and later entries aside.
    struct Answers: Sendable {
        var first: [Int32]
        var more: [Int: [Int]] = [:]
    }

    /// Answers a batch in file order, having looked its fixes up in cell order (the stops of a
    /// cell are then read from memory once for many fixes: 50,000 stops' geometry does not fit
    /// in the processor's caches).
    private func answer(_ batch: inout Batch, _ emit: (Int, String, String) -> Void) async throws {
        guard batch.count > 0 else { return }
        let answers = Self.lookUp(&batch, in: index, inCellOrder: true)
        try await answer(batch, answers, emit)
        batch = Batch()
    }

    /// Looks a batch's fixes up, in cell order or in file order.
    static func lookUp(_ batch: inout Batch, in index: GeofenceIndex, inCellOrder: Bool) -> Answers {
        let n = batch.count
        var answers = Answers(first: [Int32](repeating: -1, count: n))
        var found: [Int] = []
        func look(_ i: Int) {
            if index.covering(latitude: batch.lats[i], longitude: batch.lons[i], into: &found) {
                if let entry = found.first {
                    answers.first[i] = Int32(entry)
                    if found.count > 1 { answers.more[i] = Array(found.dropFirst()) }
                }
            } else {
                answers.first[i] = -2
            }
        }
        if inCellOrder {
            radixSort(&batch.keys)
            for key in batch.keys { look(Int(key & 0xFFFF)) }
        } else {
            for i in 0..<n { look(i) }
        }
        return answers
    }

    /// Answers a batch looked up, in file order; the store decides the fixes the index could not.
    private func answer(_ batch: Batch, _ answers: Answers, _ emit: (Int, String, String) -> Void)
        async throws
    {
        for i in 0..<batch.count {
            switch answers.first[i] {
            case -1: continue
            case -2:
                let position = Coordinate(unchecked: batch.lats[i], batch.lons[i])
                for stop in try await store.stops(covering: position, inHunt: nil) {
                    emit(batch.lines[i], stop.huntID, stop.stopID)
                }
            case let entry:
                emit(batch.lines[i], index.entries[Int(entry)].huntID, index.entries[Int(entry)].stopID)
                if !answers.more.isEmpty, let others = answers.more[i] {
                    for e in others { emit(batch.lines[i], index.entries[e].huntID, index.entries[e].stopID) }
                }
            }
        }
    }

    /// The second thread of a locate on two: batches go in, looked up, and come out in the order
    /// they went in. At most `inFlight` batches are in it at once (memory stays flat).
    final class LookupPipe: @unchecked Sendable {
        /// Fixes a batch when they are looked up in file order.
        static let batchSize = 4096
        static let inFlight = 4
        let condition = NSCondition()
        var waiting: [(Int, Batch)] = []
        var looked: [Int: (Batch, Answers)] = [:]
        var closed = false
        var finished = false
        /// Batches put in and taken out: the calling thread's counts.
        var submitted = 0
        var answered = 0

        init(index: GeofenceIndex, inCellOrder: Bool) {
            let thread = Thread { [self] in lookUp(index: index, inCellOrder: inCellOrder) }
            thread.stackSize = 1 << 20
            thread.start()
        }

        func submit(_ batch: Batch) {
            condition.lock()
            waiting.append((submitted, batch))
            condition.broadcast()
            condition.unlock()
            submitted += 1
        }

        /// The next batch in order with its answers; nil if it is not ready and `wait` is false.
        func take(wait: Bool) -> (Batch, Answers)? {
            condition.lock()
            defer { condition.unlock() }
            while looked[answered] == nil {
                guard wait else { return nil }
                condition.wait()
            }
            answered += 1
            return looked.removeValue(forKey: answered - 1)
        }

        /// Stops the thread once the batches in it are looked up, and waits for it.
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            while !finished { condition.wait() }
            condition.unlock()
        }

        private func lookUp(index: GeofenceIndex, inCellOrder: Bool) {
            while true {
                condition.lock()
                while waiting.isEmpty && !closed { condition.wait() }
                if waiting.isEmpty {
                    finished = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                var (sequence, batch) = waiting.removeFirst()
                condition.unlock()
                let answers = BatchLocator.lookUp(&batch, in: index, inCellOrder: inCellOrder)
                condition.lock()
                looked[sequence] = (batch, answers)
                condition.broadcast()
                condition.unlock()
            }
        }
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
