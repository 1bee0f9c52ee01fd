import Foundation
import VSHHost
import Synchronization
public import VSHCore

/// Photos as files in a folder, content-addressed (`ab/abcdef….jpg`): the `PhotoStore`
/// beside a SpatiaLite database (`vsh.sqlite` → `vsh.sqlite.photos/`, chosen by the caller).
///
/// Written atomically and durably: a temporary file in the same folder, flushed,
/// renamed, then the folder flushed, so that the name survives a power cut too.
public struct FilePhotoStore: PhotoStore {
    /// The folder holding the photos.
    public let root: String

    /// A store in the folder `root` (created on the first `put`).
    public init(root: String) {
        self.root = root
    }

    /// The conventional folder for the photos of the database at `databasePath`: `<path>.photos`.
    public static func beside(databasePath: String) -> FilePhotoStore {
        FilePhotoStore(root: databasePath + ".photos")
    }

    /// The path of a key's file.
    public func absolutePath(_ key: String) -> String { root + "/" + key }

    /// Numbers the temporary files of this process.
    private static let incoming = Atomic<Int>(0)

    /// The path of a key's file.
    public func location(of key: String) -> String { absolutePath(key) }

    /// Every stored key, in order; none when the folder does not exist yet.
    public func keys() throws -> [String] {
        guard let folders = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        var keys: [String] = []
        for folder in folders.sorted() where folder.count == 2 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
            keys += names.sorted().map { folder + "/" + $0 }.filter(Self.isKey)
        }
        return keys
    }

    /// Deletes the photo under `key` (its file); a key that is not a photo's is left alone.
    public func delete(_ key: String) throws {
        guard Self.isKey(key) else { return }
        if unlink(absolutePath(key)) != 0, errno != ENOENT {
            throw PhotoStoreError(message: "cannot delete a photo", path: absolutePath(key), errno: errno)
        }
    }

    /// Where durable writes wait for the disk: a flush (`fsync`) holds its thread until the disk has
    /// the data, and Swift's concurrency has only as many threads as cores for everything else a
    /// server does (a request's form, a photo's decode). Dispatch adds threads for work that waits.
    private static let waitingForTheDisk = DispatchQueue(
        label: "vsh.photos.durable", qos: .userInitiated, attributes: .concurrent)

    /// `write(_:sha256:durable:)` for async callers (a server's requests): a durable write on a
    /// thread of its own, so that the flushes' waits do not hold Swift's threads.
    @discardableResult
    public func put(_ bytes: [UInt8], sha256: String, durable: Bool) async throws -> String {
        guard durable else { return try write(bytes, sha256: sha256, durable: false) }
        return try await withCheckedThrowingContinuation { continuation in
            Self.waitingForTheDisk.async {
                continuation.resume(with: Result { try self.write(bytes, sha256: sha256, durable: true) })
            }
        }
    }

    /// Stores the bytes as `root/ab/<sha256>.jpg`: written to a temporary file, flushed, renamed, and the folder flushed (when `durable`).
    @discardableResult
    public func write(_ bytes: [UInt8], sha256: String, durable: Bool) throws -> String {
        guard sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw PhotoStoreError(message: "invalid photo hash \"\(sha256.prefix(80))\"", path: root)
        }
        let key = Self.key(sha256: sha256)
        let path = absolutePath(key)
        // Already archived: kept when it is still the photo, rewritten when it was damaged
        // (emptied, cut short, replaced), which `vsh doctor` reports. The file is compared with
        // the bytes, which hash to the key, rather than hashed again.
        if DurableFile.holds(path, bytes) { return key }
        // The calls a photo costs are a batch's (10,000 of them): the folder by `mkdir` (its
        // parents only the first time), the temporary name from a counter (`O_EXCL` refuses a
        // name left by a killed run), no Foundation path or UUID work.
        let folder = root + "/" + key.prefix(2)
        // Players' photos are private: folders 0700, files 0600, whatever the umask.
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            let made = errno == ENOENT && (mkdir(root, 0o700) == 0 || errno == EEXIST)
            guard made, mkdir(folder, 0o700) == 0 || errno == EEXIST else {
                throw PhotoStoreError(message: "cannot create the photo folder", path: folder, errno: errno)
            }
        }
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<64 {
            temporary = folder + "/.incoming-\(getpid())-\(Self.incoming.add(1, ordering: .relaxed).oldValue)"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            throw PhotoStoreError(message: "cannot write a photo", path: folder, errno: errno)
        }
        let ok = DurableFile.writeAll(bytes, to: fd, sync: durable)
        let failure = errno
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw PhotoStoreError(message: "cannot write a photo (disk full?)", path: folder, errno: failure)
        }
        if durable { try Self.syncFolder(folder) }
        return key
    }

    /// Stores the bytes durably (the synchronous form, for code that holds a `FilePhotoStore`).
    @discardableResult
    public func put(_ bytes: [UInt8], sha256: String) throws -> String {
        try write(bytes, sha256: sha256, durable: true)
    }

    /// The bytes of a key's file, or nil when there is none or `key` is not a key.
    public func get(_ key: String) throws -> [UInt8]? {
        guard Self.isKey(key) else { return nil }
        let path = absolutePath(key)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotoStoreError(message: "cannot read a photo", path: path, errno: errno)
        }
        return [UInt8](data)
    }

    /// Whether the key's file is there and hashes to its key.
    func condition(of key: String) throws -> PhotoCondition {
        guard let bytes = try get(key) else { return .missing }
        return SHA256.hex(bytes) == String(key.suffix(68).prefix(64)) ? .intact : .damaged
    }

    /// Whether a key's file exists (false for anything that is not a key).
    public func exists(_ key: String) -> Bool {
        Self.isKey(key) && FileManager.default.fileExists(atPath: absolutePath(key))
    }

    /// Makes every file written to the store durable with one `syncfs` of its
    /// file system (instead of one `fsync` a photo: a batch of 10,000 spent a
    /// third of its time there). `syncfs` is looked up at run time: the Glibc
    /// module does not declare it; `sync()` is the fallback.
    public func flush() throws {
        typealias SyncFS = @convention(c) (Int32) -> Int32
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
            if unsafeBitCast(symbol, to: SyncFS.self)(fd) == 0 { return }
        }
        sync()
    }

    /// A key as `put` makes them: two hex digits, a slash, 64 hex digits, `.jpg`; nothing
    /// else names a file (no `..`, no absolute paths).
    static func isKey(_ key: String) -> Bool {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 68, parts[1].hasSuffix(".jpg") else {
            return false
        }
        let hex = parts[1].dropLast(4)
        return hex.allSatisfy(\.isHexDigit) && hex.hasPrefix(parts[0])
    }

    /// `fsync` on a folder: makes a rename in it durable.
    static func syncFolder(_ folder: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw PhotoStoreError(message: "cannot open the photo folder", path: folder, errno: errno)
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw PhotoStoreError(message: "cannot flush the photo folder", path: folder, errno: errno)
        }
    }
}

/// A failure of the photo store's file system: what, where, and the `errno` behind it.
public struct PhotoStoreError: Error, ClassifiedError, CustomStringConvertible, Sendable {
    /// What went wrong, in words.
    public let message: String
    /// The file or folder.
    public let path: String
    /// The system's error number (0 when none applies).
    public let errno: Int32

    /// An error naming the file or folder, with the system's error number.
    public init(message: String, path: String, errno: Int32 = 0) {
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// `path: message (strerror)`, one line.
    public var description: String {
        "\(path): \(message)" + (errno == 0 ? "" : " (\(String(cString: strerror(errno))))")
    }

    /// A storage failure when the system could not write (a full disk, a read-only file system,
    /// an I/O error), else an internal one: the archive is part of the installation, not input.
    public var errorKind: ErrorKind {
        [ENOSPC, EDQUOT, EROFS, EIO, EACCES, EPERM].contains(errno) ? .storageFailure : .internalFailure
    }
}
