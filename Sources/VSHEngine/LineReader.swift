import Foundation
import VSHCore

/// Reads a file a block of whole lines at a time, in 256 KiB reads, so memory stays flat
/// whatever the file's size. Lines end in LF (or CRLF); the last line may lack one.
public final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
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
    /// the file holds.
    public func nextBlock(atLeast count: Int, longestLine: Int) -> [UInt8]? {
        while !stoppedAtALongLine {
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Array(buffer[start...])
            }
            if buffer.count - start >= count,
                let newline = buffer[(start + count - 1)...].firstIndex(of: 0x0A)
            {
                defer { start = newline + 1 }
                return Array(buffer[start...newline])
            }
            // The line being read has no end yet: past `longestLine` bytes, reading stops at it.
            let lineStart = buffer[start...].lastIndex(of: 0x0A).map { $0 + 1 } ?? start
            if buffer.count - lineStart > longestLine {
                stoppedAtALongLine = true
                guard lineStart > start else { return nil }
                defer { start = lineStart }
                return Array(buffer[start..<lineStart])
            }
            fill()
        }
        return nil
    }

    /// Reads 256 KiB more onto the end of the buffer (what was returned dropped first); an error
    /// reads as the end, as the end of the file does.
    private func fill() {
        buffer.removeFirst(start)
        start = 0
        let kept = buffer.count
        var got = 0
        buffer.append(contentsOf: repeatElement(0, count: 1 << 18))
        buffer.withUnsafeMutableBytes { bytes in
            repeat { got = read(fd, bytes.baseAddress! + kept, 1 << 18) } while got < 0 && errno == EINTR
        }
        buffer.removeLast((1 << 18) - max(got, 0))
        bytesRead += max(got, 0)
        if got <= 0 { atEnd = true }
    }
}
