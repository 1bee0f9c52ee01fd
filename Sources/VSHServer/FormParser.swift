import Foundation

/// A streaming `multipart/form-data` parser (RFC 7578 over RFC 2046's multipart syntax): fed the
/// body in pieces of any size, it reports each part's header lines, its content in pieces, and its
/// end. The delimiter is found with `memmem`, so a part's bytes are looked at once, in bulk (the
/// byte-at-a-time parser it replaces was a twelfth of a photo check-in's CPU).
///
/// Memory is bounded whatever the input: a part's content is passed on as it arrives, but for the
/// few bytes that may begin a delimiter; a part's headers may take `maxHeaderBytes`; the preamble
/// before the first delimiter is dropped as it is read.
public struct FormParser {
    /// A body that is not a form with this boundary.
    public struct Malformed: Error, Equatable {
        /// What is wrong, in words.
        public var reason: String

        /// A refusal for `reason`.
        public init(reason: String) { self.reason = reason }
    }

    /// Header bytes a part may have (its `Content-Disposition` and `Content-Type` lines).
    public static let maxHeaderBytes = 16 * 1024
    /// Spaces and tabs allowed after a delimiter (RFC 2046's transport padding).
    public static let maxPadding = 256

    /// Called with each header line of a part, name and value trimmed.
    public var onHeader: (String, String) -> Void = { _, _ in }
    /// Called with a piece of the current part's content (the pointer is valid for the call).
    public var onBody: (UnsafeRawBufferPointer) -> Void = { _ in }
    /// Called when the current part's content is complete.
    public var onPartComplete: () -> Void = {}

    /// True once the close delimiter (`--boundary--`) was read: the form is whole.
    public private(set) var isFinished = false

    private enum State { case preamble, afterDelimiter, headers, content, epilogue }
    private var state = State.preamble
    /// "\r\n--" + boundary: what ends a part's content.
    private let delimiter: [UInt8]
    /// Bytes read but not yet passed on (a possible delimiter's beginning, a header block).
    private var pending: [UInt8]

    /// A parser for `boundary` (1 to 70 characters, from the `Content-Type`).
    public init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body without the line break before it: one is assumed.
        pending = [13, 10]
    }

    /// Reads the next piece of the body.
    /// - Throws: `Malformed` when the bytes cannot be this form.
    public mutating func execute(_ bytes: UnsafeRawBufferPointer) throws {
        guard state != .epilogue else { return }
        pending.append(contentsOf: bytes)
        var offset = 0
        defer { pending.removeFirst(offset) }
        while true {
            let available = pending.count - offset
            switch state {
            case .preamble:
                if let found = find(delimiter, from: offset) {
                    offset = found + delimiter.count
                    state = .afterDelimiter
                } else {
                    // Keep what may begin the delimiter; drop the rest of the preamble.
                    offset = max(offset, pending.count - (delimiter.count - 1))
                    return
                }
            case .afterDelimiter:
                guard available >= 2 else { return }
                if pending[offset] == 45, pending[offset + 1] == 45 {  // "--": the close delimiter
                    isFinished = true
                    state = .epilogue
                    offset = pending.count
                    return
                }
                var index = offset
                while index < pending.count, pending[index] == 32 || pending[index] == 9 { index += 1 }
                guard index - offset <= Self.maxPadding else {
                    throw Malformed(reason: "too much space after a boundary")
                }
                guard index + 2 <= pending.count else { return }
                guard pending[index] == 13, pending[index + 1] == 10 else {
                    throw Malformed(reason: "a boundary is not followed by a line break")
                }
                offset = index + 2
                state = .headers
            case .headers:
                // An empty header block ends at once; otherwise at the first blank line.
                let end: Int
                let skip: Int
                if available >= 2, pending[offset] == 13, pending[offset + 1] == 10 {
                    (end, skip) = (offset, 2)
                } else if let found = find([13, 10, 13, 10], from: offset) {
                    (end, skip) = (found, 4)
                } else {
                    guard available <= Self.maxHeaderBytes else {
                        throw Malformed(
                            reason: "a part's headers are longer than \(Self.maxHeaderBytes) bytes")
                    }
                    return
                }
                guard end - offset <= Self.maxHeaderBytes else {
                    throw Malformed(reason: "a part's headers are longer than \(Self.maxHeaderBytes) bytes")
                }
                for line in pending[offset..<end].split(separator: 10, omittingEmptySubsequences: true) {
                    let text = line.last == 13 ? line.dropLast() : line
                    guard let colon = text.firstIndex(of: 58) else {
                        throw Malformed(reason: "a part's header line has no colon")
                    }
                    let name = String(decoding: text[..<colon], as: UTF8.self)
                    let value = String(decoding: text[(colon + 1)...], as: UTF8.self)
                    onHeader(
                        name.trimmingWhiteSpace(), value.trimmingWhiteSpace())
                }
                offset = end + skip
                state = .content
            case .content:
                if let found = find(delimiter, from: offset) {
                    emit(from: offset, to: found)
                    onPartComplete()
                    offset = found + delimiter.count
                    state = .afterDelimiter
                } else {
                    // All but what may begin the delimiter.
                    let safe = max(offset, pending.count - (delimiter.count - 1))
                    emit(from: offset, to: safe)
                    offset = safe
                    return
                }
            case .epilogue:
                offset = pending.count
                return
            }
        }
    }

    private func emit(from start: Int, to end: Int) {
        guard end > start else { return }
        pending.withUnsafeBytes { onBody(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Where `needle` first occurs in `pending` at or after `start`: `memchr` for its first byte
    /// (a line break, rare in a photo's bytes), then `memcmp` for the rest.
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard pending.count - start >= needle.count else { return nil }
        return pending.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { wanted in
                let base = haystack.baseAddress!
                let last = haystack.count - wanted.count  // the last place a match may begin
                var at = start
                while at <= last {
                    guard let hit = memchr(base + at, Int32(wanted[0]), last - at + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, wanted.baseAddress!, wanted.count) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
        }
    }
}
