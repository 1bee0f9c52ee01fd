import Foundation
public import VSHCore

/// Reads photos: EXIF with libexif, structure by walking JPEG segments. Never decodes pixels.
public enum PhotoReader {
    /// Larger files are refused before they are read (a phone photo is 2-15 MiB).
    public static let maxFileBytes = 64 << 20
    /// Declared pixel counts above this are refused for check-ins (no camera makes them;
    /// a decoder would be asked for gigabytes).
    public static let maxPixels = 400_000_000

    /// What `vsh exif` shows: the metadata, reading only segment headers, the
    /// EXIF APP1 segment and the frame header.
    /// - Throws: `PhotoError` when the file cannot be opened, is empty or is not a JPEG.
    public static func metadata(path: String) throws(PhotoError) -> PhotoMetadata {
        let file = try OpenFile(path: path)
        let head = file.read(at: 0, count: 2)
        guard head.count == 2 else { throw .empty(file: path) }
        guard head == [0xFF, 0xD8] else { throw .notJPEG(file: path) }
        let buffered = BufferedRead(file)
        let layout = JPEGLayout.walk(size: file.size, throughScans: false) { buffered.read($0, $1) }
        return metadata(of: layout)
    }

    /// The metadata of a walked file: the one reading of EXIF that `vsh exif` shows and the
    /// verifier decides on (the same segment, the same parser, the same frame size).
    static func metadata(of layout: JPEGLayout) -> PhotoMetadata {
        var metadata = layout.exifPayload.flatMap(ExifDocument.init(payload:))?.metadata() ?? PhotoMetadata()
        if layout.exifPayload == nil { metadata.positionNote = "no EXIF" }
        metadata.width = layout.width
        metadata.height = layout.height
        return metadata
    }

    /// What `metadata(path:)` reads, from bytes already in memory (an archived photo).
    public static func metadata(bytes: [UInt8]) -> PhotoMetadata? {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        let layout = JPEGLayout.walk(size: bytes.count, throughScans: false) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
        return metadata(of: layout)
    }

    /// A photo for a check-in from a file: metadata and both identities, from the whole
    /// file (at most `maxFileBytes`), which must be a sound JPEG.
    /// - Returns: the photo and the file's bytes (to keep a copy).
    public static func photo(path: String) throws(PhotoError) -> (photo: Photo, bytes: [UInt8]) {
        let bytes = try fileBytes(path: path)
        return (try photo(bytes: bytes, name: path), bytes)
    }

    /// A whole photo file's bytes, refused past `maxFileBytes` before it is read.
    public static func fileBytes(path: String) throws(PhotoError) -> [UInt8] {
        let file = try OpenFile(path: path)
        guard file.size > 0 else { throw .empty(file: path) }
        guard file.size <= maxFileBytes else {
            throw .tooLarge(file: path, bytes: file.size, limit: maxFileBytes)
        }
        let bytes = file.read(at: 0, count: file.size)
        guard bytes.count == file.size else { throw .unreadable(file: path) }
        return bytes
    }

    /// A photo for a check-in from its bytes (an upload, a file already read): metadata
    /// and both identities. The bytes must be a sound JPEG of at most `maxFileBytes`.
    /// - Parameter name: how errors name the photo (a file path, an upload's field).
    public static func photo(bytes: [UInt8], name path: String) throws(PhotoError) -> Photo {
        guard !bytes.isEmpty else { throw .empty(file: path) }
        guard bytes.count <= maxFileBytes else {
            throw .tooLarge(file: path, bytes: bytes.count, limit: maxFileBytes)
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw .notJPEG(file: path) }
        let layout = JPEGLayout.walk(size: bytes.count, throughScans: true) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
        if let problem = layout.problem { throw .corrupt(file: path, reason: problem) }
        guard let width = layout.width, let height = layout.height, layout.sawScan else {
            throw .corrupt(file: path, reason: "no frame header or no image data")
        }
        guard width > 0, height > 0 else { throw .corrupt(file: path, reason: "zero pixel size") }
        guard width * height <= maxPixels else {
            throw .absurdDimensions(file: path, width: width, height: height)
        }
        let metadata = metadata(of: layout)
        var image = SHA256()
        for range in layout.imageRanges { image.update(bytes[range]) }
        // The pixels, decoded small: a file cut short or corrupt is refused here (its structure
        // can look whole up to where it stops), and the pixel hashes see through re-encodings.
        let decoded: RGBImage
        do {
            decoded = try JPEGCodec.decodeWhole(bytes, covering: 64, 64)
        } catch let error as JPEGCodecError {
            if case .decode(let message) = error { throw .corrupt(file: path, reason: message) }
            throw .corrupt(file: path, reason: "\(error)")
        } catch {
            throw .corrupt(file: path, reason: "\(error)")
        }
        let pixels = PixelIdentity(decoded: decoded, orientation: metadata.orientation ?? 1)
        return Photo(
            metadata: metadata, fileSHA256: SHA256.hex(bytes), imageSHA256: image.finalizeHex(),
            byteCount: bytes.count, pixelSHA256: pixels.sha256, perceptualHash: pixels.perceptualHash)
    }
}

/// A read-only file descriptor with positioned reads, closed in `deinit`.
final class OpenFile {
    let descriptor: Int32
    let size: Int

    init(path: String) throws(PhotoError) {
        // O_NONBLOCK: a FIFO given as a photo would block the open until a writer came; it is
        // refused below as not a regular file. (Reads of a regular file never block on it.)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(file: path) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .unreadable(file: path)
        }
        descriptor = fd
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset`; fewer at the end of the file.
    func read(at offset: Int, count: Int) -> [UInt8] {
        guard count > 0, offset >= 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        var buffer = [UInt8](repeating: 0, count: wanted)
        var got = 0
        while got < wanted {
            let n = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + got, wanted - got, off_t(offset + got))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        return got == wanted ? buffer : Array(buffer[..<got])
    }
}
