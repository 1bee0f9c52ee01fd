import Foundation
import VSHCore

/// Reads a file a block of whole lines at a time, so memory stays flat whatever the file's size.
/// Lines end in LF (or CRLF); the last line may lack one.
public final class LineReader {
    private let fd: Int32
    /// The bytes read and not yet returned.
    private var buffer: [UInt8] = []
    private var atEnd = false

    /// - Throws: `FileAccessError.cannotOpen` (exit 66) when it cannot be opened.
    public init(path: String) throws {
        // The size from the open file (`fstat`): FileManager's attributes also look the owner's
        // name up, reading /etc/passwd and /etc/group on every run.
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        var status = stat()
        guard fd >= 0, fstat(fd, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
            if fd >= 0 { close(fd) }
            throw FileAccessError.cannotOpen(path: path)
        }
        self.fd = fd
        size = Int(status.st_size)
    }

    /// The file's size in bytes when it was opened.
    public let size: Int
    /// The bytes read from the file so far.
    private(set) var bytesRead = 0

    deinit { close(fd) }

    /// Whether reading stopped at a line longer than `nextBlock`'s `longestLine`: the blocks
    /// before hold every line before it, and nothing after it is read.
    public private(set) var stoppedAtALongLine = false

    /// The next `count` bytes or more of whole lines (up to the end of the line the `count`th byte
    /// is in; at the end of the file, the rest of it), or nil at the end. A line longer than
    /// `longestLine` bytes stops the reading (`stoppedAtALongLine`): memory stays bounded whatever
    /// the file holds. The block is the array the bytes were read into: only the start of the
    /// next line, after it, is copied.
    public func nextBlock(atLeast count: Int, longestLine: Int) -> [UInt8]? {
        let count = max(1, count)
        while !stoppedAtALongLine {
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return buffer
            }
            if buffer.count >= count, let newline = buffer[(count - 1)...].firstIndex(of: 0x0A) {
                return take(newline + 1)
            }
            // The line being read has no end yet: past `longestLine` bytes, reading stops at it.
            let lineStart = buffer.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            if buffer.count - lineStart > longestLine {
                stoppedAtALongLine = true
                guard lineStart > 0 else { return nil }
                return take(lineStart)
            }
            // A line longer than the slack grows the buffer by up to 256 KiB at a time.
            fill(max(count + Self.slack - buffer.count, min(buffer.count, 1 << 18)))
        }
        return nil
    }

    /// What is read beyond a block's `count` bytes, for the end of its last line: 4 KiB.
    static let slack = 1 << 12

    /// The buffer's first `n` bytes, as the block; the bytes after them stay.
    private func take(_ n: Int) -> [UInt8] {
        let rest = Array(buffer[n...])
        buffer.removeLast(buffer.count - n)
        let block = buffer
        buffer = rest
        return block
    }

    /// Reads `want` bytes more (at least 4 KiB) after the buffer's, into a new array that takes
    /// them (no bytes written twice); an error reads as the end, as the end of the file does.
    private func fill(_ want: Int) {
        let want = max(want, Self.slack)
        let kept = buffer.count
        var got = 0
        buffer = [UInt8](unsafeUninitializedCapacity: kept + want) { bytes, initialized in
            if kept > 0 {
                _ = buffer.withUnsafeBufferPointer { memcpy(bytes.baseAddress!, $0.baseAddress!, kept) }
            }
            repeat { got = read(fd, bytes.baseAddress! + kept, want) } while got < 0 && errno == EINTR
            initialized = kept + max(got, 0)
        }
        bytesRead += max(got, 0)
        if got <= 0 { atEnd = true }
    }
}
