import Foundation
import VSHCore

/// Reads a file line by line in 256 KiB chunks, so memory stays flat whatever
/// the file's size. Lines end in LF or CRLF; the last line may lack one.
public final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// 1-based number of the line last returned.
    public private(set) var lineNumber = 0

    /// - Throws: `FileAccessError.cannotOpen` (exit 66) when it cannot be opened.
    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { throw FileAccessError.cannotOpen(path: path) }
        self.handle = handle
        size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The file's size in bytes when it was opened (0 if it could not be told).
    public let size: Int

    deinit { try? handle.close() }

    /// The next line without its line ending, or nil at the end of the file.
    public func next() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                lineNumber += 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return line.last == 0x0D ? line.dropLast() : line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = (try? handle.read(upToCount: 1 << 18)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }
}
