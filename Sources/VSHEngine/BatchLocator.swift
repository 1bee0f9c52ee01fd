import Foundation
public import VSHCore

/// Looks up a file of fixes (`lat,lon` a line) against every stop: the work of
/// `vsh locate --fixes`, streamed a block of whole lines at a time (256 KiB; 1 MiB among stops
/// whose geometry outgrows the processor's caches, whose fixes are then looked up in grid-cell
/// order). On a machine of more than one core, a long file's blocks go in pairs: the first read,
/// parsed and looked up on a second thread while this one does the same with the second; both
/// are answered here, in file order. Memory stays flat whatever the file's size.
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
    /// How many fixes are looked up (in cell order) at a time.
    let batchSize: Int
    /// Files of at least this many bytes are read and looked up on two threads (nil: never).
    let twoThreadsFrom: Int?
    /// The bytes of a block (nil: 256 KiB, or 1 MiB in cell order).
    let blockBytes: Int?

    /// - Parameters:
    ///   - index: every stop, in catalog order (`GeofenceIndex(stops:)`).
    ///   - store: answers the fixes the index cannot decide.
    ///   - cellOrderAbove: the size of the stops' coordinates (`geometryBytes`) from which fixes
    ///     are looked up in cell order: 8 MB (measured on 1,000,000 fixes: in cell order 15 %
    ///     faster among 50,000 stops, 19 MB, and 30 % slower among 5,000, 2 MB, where sorting
    ///     costs more than it saves).
    ///   - batchSize: fixes looked up at a time (1-65,536).
    ///   - twoThreadsFrom: the size of a file of fixes from which they are looked up on two
    ///     threads (`twoThreadsByDefault`); nil: never.
    ///   - blockBytes: the bytes read at a time (tests make it small); nil: 256 KiB, 1 MiB in
    ///     cell order.
    public init(
        index: GeofenceIndex, store: any HuntStore, cellOrderAbove: Int = 8 << 20, batchSize: Int = 1 << 16,
        twoThreadsFrom: Int? = BatchLocator.twoThreadsByDefault, blockBytes: Int? = nil
    ) {
        self.index = index
        self.store = store
        self.cellOrderAbove = cellOrderAbove
        self.batchSize = min(max(1, batchSize), 1 << 16)
        self.twoThreadsFrom = twoThreadsFrom
        self.blockBytes = blockBytes.map { max(1, $0) }
    }

    /// 512 KiB (two blocks) on a machine of more than one core, else nil.
    public static var twoThreadsByDefault: Int? {
        ProcessInfo.processInfo.activeProcessorCount > 1 ? 1 << 19 : nil
    }

    /// Reads `path` and calls `emit(line, huntID, stopID)` for every stop covering each fix,
    /// in file order, then in catalog order for one fix.
    /// - Throws: `FixFileError` naming the file and line of the first line that is not a fix,
    ///   is out of range or is over 1 MiB long (exit 65), after the answers of every fix before it;
    ///   `FileAccessError` when the file cannot be opened (66).
    public func locate(path: String, emit: (Int, String, String) -> Void) async throws {
        let reader = try LineReader(path: path)
        let inCellOrder = index.geometryBytes > cellOrderAbove
        let size = blockBytes ?? (inCellOrder ? 1 << 20 : 1 << 18)
        let (index, batchSize) = (index, batchSize)
        let scan: @Sendable ([UInt8]) -> Scan = {
            Self.scan($0, from: 0, index: index, inCellOrder: inCellOrder, batchSize: batchSize)
        }
        let second = twoThreadsFrom.map { reader.size >= $0 } == true ? ScanThread(scan) : nil
        defer { second?.close() }
        func nextBlock() -> [UInt8]? { reader.nextBlock(atLeast: size, longestLine: Self.longestLine) }
        var place = Place()
        var block = nextBlock()
        // On two threads, the next block is handed over before this one answers the two it has.
        if let block, let second { second.submit(block) }
        while let current = block {
            guard let second else {
                try await answer(current, scan(current), &place, inCellOrder: inCellOrder, path: path, emit)
                block = nextBlock()
                continue
            }
            let next = nextBlock()
            let nextScan = next.map(scan)
            let currentScan = second.take()
            block = nextBlock()
            if let block { second.submit(block) }
            try await answer(current, currentScan, &place, inCellOrder: inCellOrder, path: path, emit)
            if let next, let nextScan {
                try await answer(next, nextScan, &place, inCellOrder: inCellOrder, path: path, emit)
            }
        }
        if reader.stoppedAtALongLine { throw FixFileError.lineTooLong(file: path, line: place.line + 1) }
    }

    /// The longest line a file of fixes may have: 1 MiB (a fix is a few dozen bytes; the reader
    /// holds no more than this of one line).
    static let longestLine = 1 << 20

    /// Where the answers are in the file: lines answered, and whether a fix or the header came.
    struct Place {
        var line = 0
        var sawData = false
    }

    /// A block of whole lines scanned from a place in it: its fixes looked up, a batch at a time.
    struct Scan: Sendable {
        /// The batches, their fixes numbered from 1 at the scan's first line.
        var parts: [(Batch, Answers)] = []
        /// The lines scanned: all from the place, or those before `stop`.
        var lines = 0
        /// Whether one of them was a fix.
        var sawFix = false
        /// Where the first line that is neither a fix in range, blank nor a comment starts.
        var stop: Int?
    }

    /// Reads the lines of `block` from `start`, looking its fixes up, up to its end or the first
    /// line that is not a fix in range, blank or a comment (which the caller decides).
    static func scan(
        _ block: [UInt8], from start: Int, index: GeofenceIndex, inCellOrder: Bool, batchSize: Int
    )
        -> Scan
    {
        var scanned = Scan()
        var batch = Batch()
        func lookUpBatch() {
            guard batch.count > 0 else { return }
            let answers = lookUp(&batch, in: index, inCellOrder: inCellOrder)
            scanned.parts.append((batch, answers))
            batch = Batch()
        }
        // Through a pointer: a slice of the array a line retained and released the block's
        // storage (a tenth of a million fixes' time, with the generic search for the newline).
        block.withUnsafeBufferPointer { bytes in
            var at = start
            while at < bytes.count {
                let (line, next) = Self.line(in: bytes, at: at)
                if line.count > Self.longestLine {
                    scanned.stop = at
                    break
                } else if let (lat, lon) = Self.parse(line), abs(lat) <= 90, abs(lon) <= 180 {
                    scanned.sawFix = true
                    scanned.lines += 1
                    batch.add(
                        lat, lon, line: scanned.lines,
                        cell: inCellOrder ? index.cell(latitude: lat, longitude: lon) : 0)
                    if batch.count == batchSize { lookUpBatch() }
                } else if Self.skipped(line) {
                    scanned.lines += 1
                } else {
                    scanned.stop = at
                    break
                }
                at = next
            }
        }
        lookUpBatch()
        return scanned
    }

    /// The line of `block` that starts at `at`, without its ending, and where the next starts.
    static func line(in block: [UInt8], at: Int) -> (ArraySlice<UInt8>, next: Int) {
        let (line, next) = block.withUnsafeBufferPointer { Self.line(in: $0, at: at) }
        return (block[at..<at + line.count], next)
    }

    /// The same, in bytes at a pointer (the line points into them).
    static func line(in bytes: UnsafeBufferPointer<UInt8>, at: Int) -> (UnsafeBufferPointer<UInt8>, next: Int)
    {
        let newline = offset(of: 0x0A, in: bytes, from: at) ?? bytes.count
        var end = newline
        if end > at, bytes[end - 1] == 0x0D { end -= 1 }
        return (UnsafeBufferPointer(rebasing: bytes[min(at, end)..<end]), newline + 1)
    }

    /// Where the first `byte` of `bytes` at or after `from` is, or nil. (A loop: the lines are a
    /// few dozen bytes, too short for `memchr`'s call to pay.)
    static func offset(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = max(from, 0)
        while i < bytes.count {
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// A blank line or a `#` comment.
    static func skipped(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty || text.hasPrefix("#")
    }

    /// Answers a block's scan in file order, then the line it stopped at: a header before any fix
    /// is skipped and the rest of the block scanned here; any other is the file's error.
    private func answer(
        _ block: [UInt8], _ scanned: Scan, _ place: inout Place, inCellOrder: Bool, path: String,
        _ emit: (Int, String, String) -> Void
    ) async throws {
        var scanned = scanned
        while true {
            for (batch, answers) in scanned.parts {
                try await answer(batch, answers, after: place.line, emit)
            }
            place.sawData = place.sawData || scanned.sawFix
            place.line += scanned.lines
            guard let stop = scanned.stop else { return }
            place.line += 1
            let (line, next) = Self.line(in: block, at: stop)
            if line.count > Self.longestLine { throw FixFileError.lineTooLong(file: path, line: place.line) }
            if Self.parse(line) != nil { throw FixFileError.outOfRange(file: path, line: place.line) }
            // A header line ("lat,lon") is allowed before the first fix.
            guard !place.sawData,
                String(decoding: line, as: UTF8.self).unicodeScalars.contains(where: {
                    $0.properties.isAlphabetic
                })
            else { throw FixFileError.notAFix(file: path, line: place.line) }
            place.sawData = true
            scanned = Self.scan(
                block, from: next, index: index, inCellOrder: inCellOrder, batchSize: batchSize)
        }
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

    /// Answers a batch looked up, in file order, its fixes' lines counted after `line`; the store
    /// decides the fixes the index could not.
    private func answer(
        _ batch: Batch, _ answers: Answers, after line: Int, _ emit: (Int, String, String) -> Void
    )
        async throws
    {
        for i in 0..<batch.count {
            let number = line + batch.lines[i]
            switch answers.first[i] {
            case -1: continue
            case -2:
                let position = Coordinate(unchecked: batch.lats[i], batch.lons[i])
                for stop in try await store.stops(covering: position, inHunt: nil) {
                    emit(number, stop.huntID, stop.stopID)
                }
            case let entry:
                emit(number, index.entries[Int(entry)].huntID, index.entries[Int(entry)].stopID)
                if !answers.more.isEmpty, let others = answers.more[i] {
                    for e in others { emit(number, index.entries[e].huntID, index.entries[e].stopID) }
                }
            }
        }
    }

    /// The second thread of a locate on two: a block goes in, is scanned there, and comes out.
    final class ScanThread: @unchecked Sendable {
        let condition = NSCondition()
        var block: [UInt8]?
        var scanned: Scan?
        var closed = false
        var finished = false

        init(_ scan: @escaping @Sendable ([UInt8]) -> Scan) {
            let thread = Thread { [self] in run(scan) }
            thread.stackSize = 1 << 20
            thread.start()
        }

        /// Hands a block to the thread (the one before taken).
        func submit(_ block: [UInt8]) {
            condition.lock()
            self.block = block
            condition.broadcast()
            condition.unlock()
        }

        /// The scan of the block submitted, once it is done.
        func take() -> Scan {
            condition.lock()
            defer { condition.unlock() }
            while scanned == nil { condition.wait() }
            defer { scanned = nil }
            return scanned!
        }

        /// Stops the thread once a block in it is scanned, and waits for it.
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            while !finished { condition.wait() }
            condition.unlock()
        }

        private func run(_ scan: ([UInt8]) -> Scan) {
            while true {
                condition.lock()
                while block == nil && !closed { condition.wait() }
                guard let next = block else {
                    finished = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                block = nil
                condition.unlock()
                let result = scan(next)
                condition.lock()
                scanned = result
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
        line.withUnsafeBufferPointer { parse($0) }
    }

    /// The same, in bytes at a pointer.
    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> (Double, Double)? {
        guard let comma = offset(of: UInt8(ascii: ","), in: line, from: 0) else { return nil }
        let end = offset(of: UInt8(ascii: ","), in: line, from: comma + 1) ?? line.count
        guard let lat = DecimalNumber.parse(UnsafeBufferPointer(rebasing: line[0..<comma])),
            let lon = DecimalNumber.parse(UnsafeBufferPointer(rebasing: line[(comma + 1)..<end]))
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
    /// A line of over 1 MiB (which no fix is): the file is not read past it.
    case lineTooLong(file: String, line: Int)

    /// `file:line: problem`.
    public var description: String {
        switch self {
        case .notAFix(let file, let line): return "\(file):\(line): expected \"lat,lon\" in decimal degrees"
        case .outOfRange(let file, let line): return "\(file):\(line): latitude or longitude out of range"
        case .lineTooLong(let file, let line): return "\(file):\(line): a line of over 1 MiB, not a fix"
        }
    }

    /// Bad input data.
    public var errorKind: ErrorKind { .invalidData }
}
