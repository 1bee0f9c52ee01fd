import Foundation
public import VSHCore

/// Looks up a file of fixes (`lat,lon` a line) against every stop: the work of
/// `vsh locate --fixes`, streamed a block of whole lines at a time (256 KiB; 1 MiB among stops
/// whose geometry outgrows the processor's caches, whose fixes are then looked up in grid-cell
/// order). On a machine of more than one core, a long file is read and parsed on a second
/// thread from before the league is open (`Fixes`); once the index is there, both threads look
/// blocks up and this one answers them in file order. Memory stays flat whatever the file's
/// size: the second thread reads at most 4 MiB ahead.
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
        let fixes = try Fixes(path: path, twoThreadsFrom: twoThreadsFrom, blockBytes: blockBytes)
        try await locate(fixes, emit: emit)
    }

    /// The same, for a file opened (and perhaps being read) before the index was ready.
    public func locate(_ fixes: Fixes, emit: (Int, String, String) -> Void) async throws {
        let inCellOrder = index.geometryBytes > cellOrderAbove
        fixes.start(index: index, inCellOrder: inCellOrder, batchSize: batchSize)
        defer { fixes.close() }
        var place = Place()
        while let (block, scanned) = fixes.next() {
            try await answer(block, scanned, &place, inCellOrder: inCellOrder, path: fixes.path, emit)
        }
        if fixes.reader.stoppedAtALongLine {
            throw FixFileError.lineTooLong(file: fixes.path, line: place.line + 1)
        }
    }

    /// The longest line a file of fixes may have: 1 MiB (a fix is a few dozen bytes; the reader
    /// holds no more than this of one line).
    static let longestLine = 1 << 20

    /// Where the answers are in the file: lines answered, and whether a fix or the header came.
    struct Place {
        var line = 0
        var sawData = false
    }

    /// A block of whole lines read from a place in it: its fixes in batches, not yet looked up.
    struct Parsed: Sendable {
        /// The batches, their fixes numbered from 1 at the first line read.
        var batches: [Batch] = []
        /// The lines read: all from the place, or those before `stop`.
        var lines = 0
        /// Whether one of them was a fix.
        var sawFix = false
        /// Where the first line that is neither a fix in range, blank nor a comment starts.
        var stop: Int?
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

    /// Reads the lines of `block` from `start` and looks their fixes up (`parse`, then `lookUp`).
    static func scan(
        _ block: [UInt8], from start: Int, index: GeofenceIndex, inCellOrder: Bool, batchSize: Int
    )
        -> Scan
    {
        lookUp(
            parse(block, from: start, batchSize: batchSize), in: index, inCellOrder: inCellOrder,
            batchSize: batchSize)
    }

    /// Looks up the fixes of a block read, in batches of at most `batchSize`.
    static func lookUp(_ parsed: Parsed, in index: GeofenceIndex, inCellOrder: Bool, batchSize: Int) -> Scan {
        var scanned = Scan(lines: parsed.lines, sawFix: parsed.sawFix, stop: parsed.stop)
        for read in parsed.batches {
            for batch in read.split(batchSize) {
                scanned.parts.append((batch, lookUp(batch, in: index, inCellOrder: inCellOrder)))
            }
        }
        return scanned
    }

    /// The same, with what a `Fixes` was given.
    static func lookUp(_ parsed: Parsed, _ lookup: Fixes.Lookup) -> Scan {
        lookUp(parsed, in: lookup.index, inCellOrder: lookup.inCellOrder, batchSize: lookup.batchSize)
    }

    /// Reads the lines of `block` from `start`, up to its end or the first line that is not a fix
    /// in range, blank or a comment (which the caller decides). Needs no index: a file's first
    /// blocks are read while the league opens.
    static func parse(_ block: [UInt8], from start: Int, batchSize: Int) -> Parsed {
        var parsed = Parsed()
        var batch = Batch()
        // Room for the fixes of lines of 24 bytes (`36.2339094,-115.0156705`): the arrays do not
        // grow, copying themselves into fresh memory, on a typical file.
        batch.reserve(min(batchSize, (block.count - start) / 24 + 1))
        // Through a pointer: a slice of the array a line retained and released the block's
        // storage (a tenth of a million fixes' time, with the generic search for the newline).
        block.withUnsafeBufferPointer { bytes in
            func add(_ lat: Double, _ lon: Double) {
                parsed.sawFix = true
                parsed.lines += 1
                batch.add(lat, lon, line: parsed.lines)
                if batch.count == batchSize {
                    parsed.batches.append(batch)
                    batch = Batch()
                }
            }
            var at = start
            while at < bytes.count {
                // A plain `lat,lon` line in one pass; any other the general way.
                if let (lat, lon, next) = Self.plainFix(bytes, at: at), abs(lat) <= 90, abs(lon) <= 180 {
                    add(lat, lon)
                    at = next
                    continue
                }
                let (line, next) = Self.line(in: bytes, at: at)
                if line.count > Self.longestLine {
                    parsed.stop = at
                    break
                } else if let (lat, lon) = Self.parse(line), abs(lat) <= 90, abs(lon) <= 180 {
                    add(lat, lon)
                } else if Self.skipped(line) {
                    parsed.lines += 1
                } else {
                    parsed.stop = at
                    break
                }
                at = next
            }
        }
        if batch.count > 0 { parsed.batches.append(batch) }
        return parsed
    }

    /// A line of just `lat,lon` (each a sign, at most 15 digits and a point) at `at`, read in one
    /// pass, and where the next line starts; nil for any other line, which `line` and `parse`
    /// read. Its numbers are `DecimalNumber.plain`'s, as `parse`'s are: the same doubles.
    @inline(__always)
    static func plainFix(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) -> (Double, Double, next: Int)? {
        guard let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        var i = at
        guard let lat = DecimalNumber.plain(base, &i, end), i < end, base[i] == 0x2C else { return nil }
        i += 1
        guard let lon = DecimalNumber.plain(base, &i, end) else { return nil }
        if i == end { return (lat, lon, end + 1) }
        if base[i] == 0x0A { return (lat, lon, i + 1) }
        guard base[i] == 0x0D else { return nil }
        if i + 1 == end { return (lat, lon, end + 1) }
        return base[i + 1] == 0x0A ? (lat, lon, i + 2) : nil
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
        var count: Int { lats.count }

        /// This batch in batches of at most `size` fixes (itself if it has no more).
        func split(_ size: Int) -> [Batch] {
            guard count > size else { return [self] }
            return stride(from: 0, to: count, by: size).map { start in
                let end = min(start + size, count)
                return Batch(
                    lats: Array(lats[start..<end]), lons: Array(lons[start..<end]),
                    lines: Array(lines[start..<end]))
            }
        }

        /// Room for `count` fixes.
        mutating func reserve(_ count: Int) {
            lats.reserveCapacity(count)
            lons.reserveCapacity(count)
            lines.reserveCapacity(count)
        }

        mutating func add(_ lat: Double, _ lon: Double, line: Int) {
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
    static func lookUp(_ batch: Batch, in index: GeofenceIndex, inCellOrder: Bool) -> Answers {
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
            // The cell in the high bits, the fix's place in the batch in the low 16: sorted, the
            // lookup order.
            var keys = (0..<n).map { i in
                let cell = index.cell(latitude: batch.lats[i], longitude: batch.lons[i])
                return UInt64(bitPattern: Int64(cell + 1)) << 16 | UInt64(i)
            }
            radixSort(&keys)
            for key in keys { look(Int(key & 0xFFFF)) }
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

    /// A file of fixes being read. It is opened before the league, so that on a machine of more
    /// than one core its first blocks are read and parsed on a second thread while the league
    /// opens and its stops are gathered. Once `start` gives it the index, both threads take the
    /// oldest block that waits (parsing it if it is not yet, looking it up), read the next when
    /// none waits, and `next` hands the blocks out in file order. At most `bytesAhead` (4 MiB)
    /// are read ahead of the answers, so memory stays flat. A file smaller than `twoThreadsFrom`
    /// is read, parsed and looked up by `next`, a block at a time. Used by one `locate`; `close`
    /// stops the second thread (`locate` closes it).
    public final class Fixes: @unchecked Sendable {
        /// The file, as named (in errors).
        public let path: String
        let reader: LineReader
        let blockBytes: Int?
        let threaded: Bool
        /// The bytes read ahead of the answers: another block is read while fewer than two, or
        /// fewer than this many bytes, wait.
        let bytesAhead: Int
        let condition = NSCondition()
        // The rest under `condition`.
        var slots: [Slot] = []
        /// The bytes of the blocks in `slots`.
        var bytesInSlots = 0
        /// The most bytes in `slots` at any time (tests read it).
        var mostBytesInSlots = 0
        var lookup: Lookup?
        /// Whether a thread is reading (one at a time).
        var reading = false
        var readerDone = false
        var closed = false
        var finished = true

        /// A block read; parsed, then looked up, by the thread that `claimed` it.
        final class Slot {
            let block: [UInt8]
            var parsed: Parsed?
            var claimed = false
            var scan: Scan?
            init(block: [UInt8]) { self.block = block }
        }

        /// What a lookup needs, known once the league is open.
        struct Lookup {
            let index: GeofenceIndex
            let inCellOrder: Bool
            let batchSize: Int
        }

        /// Opens `path` and, if it has `twoThreadsFrom` bytes or more, starts reading it on a
        /// second thread.
        /// - Parameters:
        ///   - twoThreadsFrom: the size from which a file is read and looked up on two threads;
        ///     nil: never.
        ///   - blockBytes: the bytes read at a time (tests make it small); nil: 256 KiB, or 1 MiB
        ///     in cell order once the index is known.
        ///   - bytesAhead: how far blocks are read ahead of the answers: 4 MiB.
        /// - Throws: `FileAccessError` when the file cannot be opened (66).
        public init(
            path: String, twoThreadsFrom: Int? = BatchLocator.twoThreadsByDefault, blockBytes: Int? = nil,
            bytesAhead: Int = 4 << 20
        ) throws {
            self.path = path
            self.bytesAhead = bytesAhead
            let reader = try LineReader(path: path)
            self.reader = reader
            self.blockBytes = blockBytes.map { max(1, $0) }
            threaded = twoThreadsFrom.map { reader.size >= $0 } == true
            if threaded {
                finished = false
                let thread = Thread { [self] in run() }
                thread.stackSize = 1 << 20
                thread.start()
            }
        }

        /// Waits until the second thread has read and parsed as far ahead as it may before the
        /// index is given, or to the file's end (tests).
        func waitForReadAhead() {
            guard threaded else { return }
            condition.lock()
            while (!readerDone && mayRead) || reading || slots.contains(where: { $0.parsed == nil }) {
                condition.wait()
            }
            condition.unlock()
        }

        /// Gives the index: from now on the blocks read are looked up.
        func start(index: GeofenceIndex, inCellOrder: Bool, batchSize: Int) {
            condition.lock()
            lookup = Lookup(index: index, inCellOrder: inCellOrder, batchSize: batchSize)
            condition.broadcast()
            condition.unlock()
        }

        /// The next block in file order and its scan, or nil after the last.
        func next() -> ([UInt8], Scan)? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let first = slots.first, let scanned = first.scan {
                    slots.removeFirst()
                    bytesInSlots -= first.block.count
                    condition.broadcast()
                    return (first.block, scanned)
                }
                if work() { continue }
                if slots.isEmpty && readerDone { return nil }
                condition.wait()
            }
        }

        /// Stops the second thread once the block in its hands is done, and waits for it.
        public func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            while !finished { condition.wait() }
            condition.unlock()
        }

        /// Whether another block may be read (under `condition`).
        private var mayRead: Bool { slots.count < 2 || bytesInSlots < bytesAhead }

        /// One step (under `condition`, which it leaves while it works): the next block read, while
        /// `mayRead`, if every block read is parsed or being parsed (reading is the one step two
        /// threads cannot share, so it goes first); else the oldest block that waits, parsed and,
        /// once the index is there, looked up. False when there was nothing to do.
        private func work() -> Bool {
            if !slots.contains(where: { !$0.claimed && $0.parsed == nil }), readNext() { return true }
            let waiting = slots.first { slot in
                !slot.claimed && slot.scan == nil && (lookup != nil || slot.parsed == nil)
            }
            if let slot = waiting {
                slot.claimed = true
                let lookup = lookup
                condition.unlock()
                let parsed = slot.parsed ?? BatchLocator.parse(slot.block, from: 0, batchSize: 1 << 16)
                let scanned = lookup.map { BatchLocator.lookUp(parsed, $0) }
                condition.lock()
                slot.parsed = parsed
                slot.scan = scanned
                slot.claimed = false
                condition.broadcast()
                return true
            }
            return readNext()
        }

        /// Reads the next block if no other thread is and `mayRead` (under `condition`, which it
        /// leaves while it reads); false if it did not.
        private func readNext() -> Bool {
            guard !reading, !readerDone, mayRead else { return false }
            reading = true
            let size = blockBytes ?? (lookup?.inCellOrder == true ? 1 << 20 : 1 << 18)
            condition.unlock()
            let block = reader.nextBlock(atLeast: size, longestLine: BatchLocator.longestLine)
            condition.lock()
            reading = false
            if let block {
                slots.append(Slot(block: block))
                bytesInSlots += block.count
                mostBytesInSlots = max(mostBytesInSlots, bytesInSlots)
            } else {
                readerDone = true
            }
            condition.broadcast()
            return true
        }

        /// The second thread: works while there is work, else waits, until closed.
        private func run() {
            condition.lock()
            while !closed {
                if !work() { condition.wait() }
            }
            finished = true
            condition.broadcast()
            condition.unlock()
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
