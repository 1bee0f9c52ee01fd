import Foundation

/// Writing whole files that must survive a crash (the photo archive, hunt files), and checking one.
public enum DurableFile {
    /// Writes all of `bytes` to `fd`, going on after short writes and interruptions, then
    /// flushes the file to disk when `sync` is set.
    /// - Returns: false when a write or the flush failed (disk full, I/O error).
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, sync: Bool) -> Bool {
        var written = 0
        return bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return !sync || fsync(fd) == 0
        }
    }

    /// Whether the file at `path` holds exactly `bytes`: its size, then its contents compared
    /// 64 KiB at a time (cheaper than hashing it again). False when it cannot be read.
    public static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count
        else {
            return false
        }
        return withUnsafeTemporaryAllocation(byteCount: 1 << 16, alignment: 16) { chunk -> Bool in
            bytes.withUnsafeBytes { expected -> Bool in
                var done = 0
                while done < expected.count {
                    let n = read(fd, chunk.baseAddress!, min(chunk.count, expected.count - done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0, memcmp(chunk.baseAddress!, expected.baseAddress! + done, n) == 0 else {
                        return false
                    }
                    done += n
                }
                var more: UInt8 = 0
                return read(fd, &more, 1) == 0
            }
        }
    }
}
