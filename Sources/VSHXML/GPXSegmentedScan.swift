import Foundation
import VSHCore

/// A long GPX file scanned on two cores: its track points are cut into segments of about
/// `segmentBytes`, each starting at a `<trkpt`. A second thread scans segments ahead into lists
/// of events, which the calling thread hands on in turn; the calling thread scans each segment
/// it reaches before the second thread has taken it, handing its events on as it goes. Events
/// reach the handler on the calling thread, in document order, with their true lines.
///
/// A segment is scanned from the state the file is in where the first segment starts (the open
/// elements, the namespaces in scope, between two points), a guess that is checked: each segment
/// must end by taking an item that ends exactly where the next one starts, in that same state.
/// The first segment starts from the file's own state, so by induction every segment whose
/// events are used was scanned from the state a scan in one piece would have been in, and gives
/// the same events, declines included. When a check fails (a `<trkpt` inside a comment, a
/// namespace declared on a segment's own element), the scan is `.unsettled`: the events handed
/// on are void, and `GPXReader` scans the file again in one piece.
///
/// Memory stays bounded: the second thread keeps at most `aheadLimit` segments' events ahead.
enum GPXSegmentedScan {
    /// The size of a segment (smaller ones cost less CPU: a segment's events stay in the cache
    /// between the thread that makes them and the one that hands them on).
    static let segmentBytes = 1 << 17
    /// The most segments the second thread keeps scanned ahead (memory: their events).
    static let aheadLimit = 4
    /// How far past a segment's nominal start a `<trkpt` is looked for.
    static let window = 1 << 12

    /// Smaller files are scanned in one piece (a few milliseconds at most).
    static let minimumBytes = 1 << 20

    /// Whether a file of `size` bytes is worth scanning in segments on this machine.
    static func worthIt(size: Int) -> Bool {
        size >= max(minimumBytes, 2 * segmentBytes) && ProcessInfo.processInfo.activeProcessorCount > 1
    }

    /// Where the scan is between two track points: what a segment's scan starts from and must
    /// end in.
    struct State: Equatable {
        var names: [UInt8]
        var nameStarts: [Int]
        var localOffsets: [Int]
        var prefixes: [[UInt8]]
        var prefixDepths: [Int]
        var elementDepth: Int
        var builderDepth: Int
        var rootName: String
        var version: String?

        /// The scanner's and builder's state, or nil when they are inside a point, a field or
        /// outside the root.
        init?(_ scanner: GPXByteScanner, _ builder: GPXBuilder) {
            guard scanner.phase == .root, builder.sawRoot, builder.point == nil, builder.field == .none else {
                return nil
            }
            names = Array(UnsafeBufferPointer(start: scanner.names, count: scanner.namesEnd))
            nameStarts = Array(UnsafeBufferPointer(start: scanner.nameStarts, count: scanner.depth))
            localOffsets = Array(UnsafeBufferPointer(start: scanner.localOffsets, count: scanner.depth))
            prefixes = scanner.prefixes.map(\.name)
            prefixDepths = scanner.prefixes.map(\.depth)
            elementDepth = scanner.depth
            builderDepth = builder.depth
            rootName = builder.rootName
            version = builder.version
        }

        /// Puts a scanner and its builder in this state, to scan from `fileOffset` (an item's
        /// start) to `stopAt`, counting lines from `line`.
        func start(
            _ scanner: inout GPXByteScanner, _ builder: inout GPXBuilder, at fileOffset: Int, stopAt: Int,
            line: Int
        ) {
            names.withUnsafeBufferPointer { scanner.names.update(from: $0.baseAddress!, count: $0.count) }
            nameStarts.withUnsafeBufferPointer {
                scanner.nameStarts.update(from: $0.baseAddress!, count: $0.count)
            }
            localOffsets.withUnsafeBufferPointer {
                scanner.localOffsets.update(from: $0.baseAddress!, count: $0.count)
            }
            scanner.namesEnd = names.count
            scanner.depth = elementDepth
            scanner.prefixes = zip(prefixes, prefixDepths).map { (name: $0, depth: $1) }
            scanner.phase = .root
            scanner.offset = fileOffset
            scanner.position = 0
            scanner.filled = 0
            scanner.endOfFile = false
            scanner.stopAt = stopAt
            scanner.line = line
            scanner.pendingLines = 0
            builder.sawRoot = true
            builder.rootName = rootName
            builder.version = version
            builder.depth = builderDepth
            builder.point = nil
            builder.field = .none
            builder.textCount = 0
        }
    }

    /// Where segments start: the file's first `<trkpt` (within its first MiB), then the first
    /// after each further `segmentBytes` (within half a segment). Fewer than two means the file
    /// is scanned in one piece.
    static func boundaries(file: Int32, size: Int, segmentBytes: Int, path: String) throws -> [Int] {
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.window, alignment: 1)
        defer { window.deallocate() }
        let tag = Array("<trkpt".utf8)
        let bytes = window.baseAddress!.assumingMemoryBound(to: UInt8.self)
        func firstTag(from start: Int, within: Int) throws -> Int? {
            var from = start
            while from < min(size, start + within) {
                let got = try GPXFile.read(file, into: window, at: from, path: path)
                guard got >= tag.count else { return nil }
                var i = 0
                while i + tag.count <= got, let lt = memchr(bytes + i, 0x3C, got - i) {
                    i = UnsafeRawPointer(bytes).distance(to: UnsafeRawPointer(lt))
                    if i + tag.count > got { break }
                    if memcmp(bytes + i, tag, tag.count) == 0 { return from + i }
                    i += 1
                }
                // The next window overlaps this one by a tag's length less one.
                from += got - (tag.count - 1)
            }
            return nil
        }
        // Waypoints, routes or a long header may come first.
        guard let first = try firstTag(from: 0, within: minimumBytes) else { return [] }
        var starts = [first]
        var nominal = first + segmentBytes
        while nominal + segmentBytes / 2 < size {
            if let next = try firstTag(from: nominal, within: max(segmentBytes / 2, Self.window)),
                next > starts.last!
            {
                starts.append(next)
            }
            nominal += segmentBytes
        }
        return starts
    }

    /// One segment scanned ahead, its events kept.
    struct Ahead {
        var events: [GPXEvent] = []
        /// The lines the segment spans (its line breaks).
        var lines = 0
        /// Ended exactly where the next segment starts, in the state it starts from.
        var joins = false
        var outcome: GPXByteScanner.Outcome = .unsettled
        var error: (any Error)?
    }

    /// What the two threads share: the segments scanned ahead, by index, which segments a thread
    /// has taken, and whether to stop.
    final class Shelf: @unchecked Sendable {
        let condition = NSCondition()
        var ready: [Int: Ahead] = [:]
        /// Emptied lists of events, their memory kept for the next segments.
        var spare: [[GPXEvent]] = []
        var taken: [Bool]
        /// Where the second thread looks for the next segment to take.
        var next = 1
        var stop = false
        var done = false

        init(segments: Int) { taken = Array(repeating: false, count: segments) }
    }

    /// What the second thread is given: the file, where segments start and the state they start
    /// from.
    struct Transfer: @unchecked Sendable {
        let file: Int32
        let path: String
        let size: Int
        let segmentBytes: Int
        let state: State
        let starts: [Int]
        let shelf: Shelf

        /// Whether segment `k` may be scanned ahead: a segment longer than four (where no
        /// `<trkpt` was found to cut it, as in a stretch of waypoints) is scanned only by the
        /// calling thread, which hands its events on as it goes, so that lists of events stay
        /// short whatever the file.
        func mayScanAhead(_ k: Int) -> Bool {
            (k + 1 < starts.count ? starts[k + 1] : size) - starts[k] <= 4 * segmentBytes
        }

        /// The first segment from `k` on that no thread has taken and that may be scanned ahead
        /// (the shelf's lock held).
        func free(from k: Int) -> Int? {
            var j = k
            while j < starts.count && (shelf.taken[j] || !mayScanAhead(j)) { j += 1 }
            return j < starts.count ? j : nil
        }
    }

    /// A scanner whose builder keeps the events, for segments scanned ahead.
    struct Collector {
        final class Events { var list: [GPXEvent] = [] }
        var scanner = GPXByteScanner()
        let events = Events()
        var builder: GPXBuilder

        init() {
            let events = self.events
            builder = GPXBuilder(handle: { events.list.append($0) })
        }

        func release() {
            builder.release()
            scanner.release()
        }

        /// Scans segment `k` from the transfer's state, with its lines counted from 1.
        mutating func scan(_ k: Int, _ transfer: Transfer) -> Ahead {
            let starts = transfer.starts
            let stopAt = k + 1 < starts.count ? starts[k + 1] : Int.max
            transfer.state.start(&scanner, &builder, at: starts[k], stopAt: stopAt, line: 1)
            var ahead = Ahead()
            do {
                ahead.outcome = try scanner.run(file: transfer.file, path: transfer.path, builder: &builder)
                ahead.joins =
                    ahead.outcome == .stopped && scanner.offset + scanner.position == stopAt
                    && State(scanner, builder) == transfer.state
                ahead.lines = scanner.line - 1
            } catch {
                ahead.error = error
            }
            ahead.events = events.list
            let shelf = transfer.shelf
            shelf.condition.lock()
            events.list = shelf.spare.popLast() ?? []
            shelf.condition.unlock()
            return ahead
        }
    }

    /// Scans `file` (of `size` bytes) in segments; `.unsettled` when they do not join.
    static func scan(
        file: Int32, path: String, size: Int, segmentBytes: Int = segmentBytes,
        into builder: inout GPXBuilder, joined: inout Int
    ) throws -> GPXByteScanner.Outcome {
        let starts = try boundaries(file: file, size: size, segmentBytes: segmentBytes, path: path)
        var scanner = GPXByteScanner()
        defer { scanner.release() }
        // What comes before the first point, read from the file's start.
        scanner.stopAt = starts.first ?? Int.max
        let head = try scanner.run(file: file, path: path, builder: &builder)
        guard head == .stopped else { return head }
        guard starts.count >= 2, scanner.offset + scanner.position == starts[0],
            let state = State(scanner, builder)
        else {
            // One segment, or the first `<trkpt` is not an item between points: the scan goes on
            // in one piece.
            scanner.stopAt = Int.max
            return try scanner.run(file: file, path: path, builder: &builder)
        }
        let shelf = Shelf(segments: starts.count)
        let transfer = Transfer(
            file: file, path: path, size: size, segmentBytes: segmentBytes, state: state, starts: starts,
            shelf: shelf)
        let thread = Thread { scanAhead(transfer) }
        thread.stackSize = 1 << 20
        thread.start()
        var collector: Collector?
        defer {
            shelf.condition.lock()
            shelf.stop = true
            shelf.condition.broadcast()
            while !shelf.done { shelf.condition.wait() }
            shelf.condition.unlock()
            collector?.release()
        }
        // Segment k's events are handed on once k - 1's are. This thread scans the segment due
        // itself when nobody has taken it (handing its events on as it goes); while the second
        // thread scans the one due, it scans one further ahead, or waits.
        var k = 0
        var line = scanner.line
        var positioned = true  // the scanner is at starts[k], in the state
        while k < starts.count {
            let stopAt = k + 1 < starts.count ? starts[k + 1] : Int.max
            shelf.condition.lock()
            if var ahead = shelf.ready.removeValue(forKey: k) {
                shelf.condition.broadcast()
                shelf.condition.unlock()
                if let error = ahead.error { throw error }
                for event in ahead.events {
                    try builder.handle(event.movedDown(line - 1))
                }
                ahead.events.removeAll(keepingCapacity: true)
                shelf.condition.lock()
                shelf.spare.append(ahead.events)
                shelf.condition.unlock()
                if ahead.outcome != .stopped { return ahead.outcome }
                guard ahead.joins else { return .unsettled }
                line += ahead.lines
                positioned = false
            } else if !shelf.taken[k] {
                // Due, and nobody has taken it: scanned here.
                shelf.taken[k] = true
                shelf.condition.unlock()
                if positioned {
                    scanner.stopAt = stopAt
                } else {
                    state.start(&scanner, &builder, at: starts[k], stopAt: stopAt, line: line)
                }
                let outcome = try scanner.run(file: file, path: path, builder: &builder)
                if outcome != .stopped { return outcome }
                guard scanner.offset + scanner.position == stopAt, State(scanner, builder) == state else {
                    return .unsettled
                }
                line = scanner.line
                positioned = true
            } else if shelf.ready.count < aheadLimit, let j = transfer.free(from: k + 1) {
                // The one due is being scanned by the second thread: one further ahead.
                shelf.taken[j] = true
                shelf.condition.unlock()
                if collector == nil { collector = Collector() }
                let ahead = collector!.scan(j, transfer)
                shelf.condition.lock()
                shelf.ready[j] = ahead
                shelf.condition.broadcast()
                shelf.condition.unlock()
                continue
            } else {
                while shelf.ready[k] == nil { shelf.condition.wait() }
                shelf.condition.unlock()
                continue
            }
            joined += 1
            k += 1
        }
        return .unsettled  // not reached: the last segment runs to the file's end
    }

    /// The second thread: the next segment nobody has taken that may be scanned ahead, each from
    /// `state`, while fewer than `aheadLimit` wait to be handed on.
    static func scanAhead(_ transfer: Transfer) {
        let shelf = transfer.shelf
        var collector = Collector()
        defer {
            collector.release()
            shelf.condition.lock()
            shelf.done = true
            shelf.condition.broadcast()
            shelf.condition.unlock()
        }
        while true {
            shelf.condition.lock()
            while shelf.ready.count >= aheadLimit && !shelf.stop { shelf.condition.wait() }
            let k = shelf.stop ? nil : transfer.free(from: shelf.next)
            if let k {
                shelf.taken[k] = true
                shelf.next = k + 1
            }
            shelf.condition.unlock()
            guard let k else { return }
            let ahead = collector.scan(k, transfer)
            shelf.condition.lock()
            shelf.ready[k] = ahead
            shelf.condition.broadcast()
            shelf.condition.unlock()
            // A segment that does not join ends the work: nothing after it can be used.
            if !ahead.joins { return }
        }
    }
}

extension GPXEvent {
    /// The same event with its line `lines` further down (a segment's lines counted from 1).
    func movedDown(_ lines: Int) -> GPXEvent {
        switch self {
        case .point(var point):
            point.line += lines
            return .point(point)
        case .skipped(let line, let reason): return .skipped(line: line + lines, reason: reason)
        default: return self
        }
    }
}
