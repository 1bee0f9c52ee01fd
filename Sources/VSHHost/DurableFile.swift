import Foundation

/// Writing whole files that must survive a crash (the photo archive, hunt files).
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
}
