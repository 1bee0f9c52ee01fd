public import Foundation
public import VSHCore

/// Submitted photos, kept content-addressed in a folder beside the database
/// (`vsh.sqlite` → `vsh.sqlite.photos/ab/abcdef….jpg`), for moderators and collages.
/// Written atomically: a temporary file in the same folder, flushed, then renamed.
public struct PhotoArchive: Sendable {
    public let root: String

    /// The archive of the database at `databasePath`.
    public init(databasePath: String) {
        root = databasePath + ".photos"
    }

    /// The path, relative to the archive, of a photo with this file hash.
    public static func relativePath(sha256: String) -> String {
        "\(sha256.prefix(2))/\(sha256).jpg"
    }

    public func absolutePath(_ relative: String) -> String { root + "/" + relative }

    /// Stores the bytes under their SHA-256 (a no-op when already there).
    /// - Parameter durable: flush the file before returning; a batch passes false
    ///   and calls `flush()` once before committing the check-ins that name its files.
    /// - Returns: the path relative to the archive.
    @discardableResult
    public func store(_ bytes: [UInt8], sha256: String, durable: Bool = true) throws -> String {
        guard sha256.count == 64, sha256.allSatisfy(\.isHexDigit) else { throw InputError("invalid photo hash") }
        let relative = Self.relativePath(sha256: sha256)
        let path = absolutePath(relative)
        if FileManager.default.fileExists(atPath: path) { return relative }
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw InputError("\(root): cannot create the photo archive folder", status: .internalError)
        }
        let temporary = folder + "/.incoming-\(UUID().uuidString)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw InputError("\(root): cannot write to the photo archive", status: .internalError) }
        let ok = DurableFile.writeAll(bytes, to: fd, sync: durable)
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw InputError("\(root): cannot write to the photo archive (disk full?)", status: .internalError)
        }
        return relative
    }
}

extension PhotoArchive {
    /// Makes every file written to the archive durable with one `syncfs` of its
    /// file system (instead of one `fsync` a photo: a batch of 10,000 spent a
    /// third of its time there). `syncfs` is looked up at run time: the Glibc
    /// module does not declare it; `sync()` is the fallback.
    public func flush() {
        typealias SyncFS = @convention(c) (Int32) -> Int32
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
            if unsafeBitCast(symbol, to: SyncFS.self)(fd) == 0 { return }
        }
        sync()
    }
}
