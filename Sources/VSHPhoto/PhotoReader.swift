import Foundation
public import VSHCore
import VSHHEIF

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
        guard head == [0xFF, 0xD8] else {
            // A HEIC photo: its EXIF lives in the container, read whole (within the size limit).
            guard HEIF.isHEIF(file.read(at: 0, count: 64)) else { throw .notJPEG(file: path) }
            guard file.size <= maxFileBytes else {
                throw .tooLarge(file: path, bytes: file.size, limit: maxFileBytes)
            }
            do {
                return heifMetadata(try HEIF.header(file.read(at: 0, count: file.size), maxPixels: maxPixels))
            } catch {
                throw .corruptHEIF(file: path, reason: "\(error)")
            }
        }
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
        if HEIF.isHEIF(bytes) { return (try? HEIF.header(bytes, maxPixels: maxPixels)).map(heifMetadata) }
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
        var layout: JPEGLayout?
        return try photo(bytes: bytes, name: path, layout: &layout)
    }

    /// `photo(bytes:name:)`, leaving a JPEG's walked structure in `walked`; `fileSHA256`, when the
    /// caller has hashed the bytes already, is not computed again.
    static func photo(
        bytes: [UInt8], name path: String, layout walked: inout JPEGLayout?, fileSHA256: String? = nil
    ) throws(PhotoError) -> Photo {
        guard !bytes.isEmpty else { throw .empty(file: path) }
        guard bytes.count <= maxFileBytes else {
            throw .tooLarge(file: path, bytes: bytes.count, limit: maxFileBytes)
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else {
            guard HEIF.isHEIF(bytes) else { throw .notJPEG(file: path) }
            return try heifPhoto(bytes, name: path, fileSHA256: fileSHA256)
        }
        let layout = JPEGLayout.walk(size: bytes.count, throughScans: true) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
        walked = layout
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
            metadata: metadata, fileSHA256: fileSHA256 ?? SHA256.hex(bytes), imageSHA256: image.finalizeHex(),
            byteCount: bytes.count, pixelSHA256: pixels.sha256, perceptualHash: pixels.perceptualHash)
    }
}

extension PhotoReader {
    /// The most bytes the archive keeps of one check-in's photo: a 48-megapixel phone photo's
    /// image data is 10-25 MB, a 200-megapixel one's about 40 MB.
    public static let maxArchivedBytes = 40 << 20

    /// A photo for a check-in (as `photo(bytes:name:)`) and what the archive keeps of it, from one
    /// walk of its structure, with the kept bytes' SHA-256. What is kept: for a JPEG, the picture
    /// and not its padding: the start of image, the JFIF and Adobe segments (a decoder's colour
    /// transform), the EXIF segment the verifier read, the tables, frames and scans, and the end of image; never the other
    /// application segments (ICC profiles, XMP, a phone's embedded second images), comments or
    /// bytes after the end. The same EXIF, image identity and pixels as the upload. A HEIC file
    /// is kept as it came (its boxes reference each other by offset).
    /// - Throws: `PhotoError.tooLarge` past `maxArchivedBytes`.
    /// - Parameter fileSHA256: the bytes' SHA-256 when the caller has it (a server hashes an upload
    ///   for its idempotency fingerprint): not computed again.
    public static func photoAndArchive(bytes: [UInt8], name path: String, fileSHA256: String? = nil)
        throws(PhotoError) -> (photo: Photo, archived: [UInt8], archivedSHA256: String)
    {
        var layout: JPEGLayout?
        let photo = try photo(bytes: bytes, name: path, layout: &layout, fileSHA256: fileSHA256)
        let kept = try archivable(bytes, layout: layout, name: path)
        return (photo, kept, kept.count == bytes.count ? photo.fileSHA256 : SHA256.hex(kept))
    }

    /// The bytes `photoAndArchive` keeps, from the walked structure (nil: not a JPEG).
    static func archivable(_ bytes: [UInt8], layout: JPEGLayout?, name path: String) throws(PhotoError)
        -> [UInt8]
    {
        var kept = bytes
        if let layout, layout.problem == nil, layout.sawScan {
            kept = [0xFF, 0xD8]
            let ranges = (layout.keptMetadataRanges + layout.imageRanges).sorted {
                $0.lowerBound < $1.lowerBound
            }
            kept.reserveCapacity(ranges.reduce(4) { $0 + $1.count })
            for range in ranges { kept += bytes[range] }
            kept += [0xFF, 0xD9]
            // A file that had nothing else is kept byte for byte (its hash is the upload's).
            if kept.count == bytes.count { kept = bytes }
        }
        guard kept.count <= maxArchivedBytes else {
            throw .tooLarge(file: path, bytes: kept.count, limit: maxArchivedBytes)
        }
        return kept
    }

    /// A HEIC photo's metadata: the container's EXIF block read by the same EXIF parser as a
    /// JPEG's APP1 segment, the size as shown. Orientation is the container's (libheif applies
    /// it), so an EXIF orientation tag is not used.
    static func heifMetadata(_ header: HEIF.Header) -> PhotoMetadata {
        let document = header.exifTIFF.flatMap { ExifDocument(payload: Array("Exif\0\0".utf8) + $0) }
        var metadata = document?.metadata() ?? PhotoMetadata()
        if document == nil { metadata.positionNote = "no EXIF" }
        metadata.orientation = nil
        metadata.width = header.width
        metadata.height = header.height
        return metadata
    }

    /// A HEIC photo for a check-in: metadata, the pixels decoded (a file cut short or corrupt is
    /// refused), and the identities: the image identity is the pixels' (EXIF rewritten leaves it).
    static func heifPhoto(_ bytes: [UInt8], name path: String, fileSHA256: String? = nil) throws(PhotoError)
        -> Photo
    {
        let header: HEIF.Header
        let decoded: HEIF.Pixels
        do {
            (header, decoded) = try HEIF.read(bytes, covering: 64, 64)
        } catch {
            throw .corruptHEIF(file: path, reason: "\(error)")
        }
        let image = RGBImage(width: decoded.width, height: decoded.height, pixels: decoded.rgb)
        let pixels = PixelIdentity(decoded: image, orientation: 1)
        return Photo(
            metadata: heifMetadata(header), fileSHA256: fileSHA256 ?? SHA256.hex(bytes),
            imageSHA256: pixels.sha256,
            byteCount: bytes.count, pixelSHA256: pixels.sha256, perceptualHash: pixels.perceptualHash)
    }
}

/// Decodes a photo of either format vsh takes (JPEG, HEIC) scaled to cover a size: collages,
/// thumbnails and avatars use it.
public enum PhotoDecoder {
    /// Whether the bytes are a photo of a format vsh decodes: a JPEG's start of image, or a HEIF
    /// file's `ftyp` box (what a request's header claims is not asked).
    public static func isPhoto(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFF, 0xD8, 0xFF]) || HEIF.isHEIF(bytes)
    }

    /// The image, at least `minWidth` x `minHeight` where it is that large (JPEG: libjpeg's DCT
    /// scaling; HEIC: decoded within `HEIF.maxDecodedPixels`, averaged down by a whole factor).
    public static func decode(_ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int) throws -> RGBImage {
        if !bytes.starts(with: [0xFF, 0xD8]), HEIF.isHEIF(bytes) {
            let decoded = try HEIF.decode(bytes, covering: minWidth, minHeight)
            return RGBImage(width: decoded.width, height: decoded.height, pixels: decoded.rgb)
        }
        return try JPEGCodec.decode(bytes, covering: minWidth, minHeight)
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
