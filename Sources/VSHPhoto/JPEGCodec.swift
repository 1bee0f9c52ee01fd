internal import CJPEG
import Foundation
public import VSHCore

/// An 8-bit RGB image, rows top to bottom.
public struct RGBImage: Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Red, green and blue bytes a pixel, rows top to bottom.
    public var pixels: [UInt8]

    /// An image of one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        var row = [UInt8]()
        row.reserveCapacity(width * 3)
        for _ in 0..<width { row += [fill.0, fill.1, fill.2] }
        pixels = Array((0..<height).map { _ in row }.joined())
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// JPEG decoding and encoding through libjpeg (libjpeg-turbo on Debian).
public enum JPEGCodec {
    /// Decodes a JPEG scaled down by DCT scaling (1/2, 1/4, 1/8) to the smallest
    /// size that still covers `minWidth` x `minHeight`: a 12-megapixel photo for
    /// a 320-pixel tile is decoded at 1/8, never in full.
    ///
    /// The work is bounded whatever the file declares: at most `maxScans` scans (each a
    /// pass over every coefficient of a progressive image), at most `maxMemory` bytes of
    /// libjpeg's working memory (a progressive image keeps all its coefficients, 2 bytes
    /// each, whatever the output scale: 2.4 GB for a 20000 x 20000 file of 27 KB), and a
    /// declared size of at most `PhotoReader.maxPixels`.
    /// - Throws: `JPEGCodecError.decode` with libjpeg's message for a corrupt or unsupported file.
    public static func decode(
        _ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int, maxPixels: Int = 20_000_000
    ) throws -> RGBImage {
        try decode(
            bytes, covering: minWidth, minHeight, maxPixels: maxPixels, maxScans: maxScans,
            maxMemory: maxMemory)
    }

    /// `decode(_:covering:_:maxPixels:)` that also refuses an image whose data ends early (a
    /// file cut short: libjpeg would draw the rest grey with a warning) or is corrupt: for a
    /// check-in's photo, which must be whole.
    public static func decodeWhole(_ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int) throws
        -> RGBImage
    {
        try decode(
            bytes, covering: minWidth, minHeight, maxPixels: 20_000_000, maxScans: maxScans,
            maxMemory: maxMemory, refuseDamaged: true)
    }

    /// Scans a decode may read: a baseline photo has 1, libjpeg's progressive default 10,
    /// mozjpeg's optimised scripts a few dozen. (libjpeg-turbo's own djpeg -maxscans idea.)
    public static let maxScans = 100
    /// libjpeg's working memory a decode may use: a 48-megapixel progressive photo with
    /// 4:2:0 chroma needs about 150 MB, so this leaves room for any phone's.
    public static let maxMemory = 512 << 20

    /// `decode(_:covering:_:maxPixels:)` with its bounds given (for tests).
    static func decode(
        _ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int, maxPixels: Int, maxScans: Int,
        maxMemory: Int, refuseDamaged: Bool = false
    ) throws -> RGBImage {
        var pointer: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = bytes.withUnsafeBufferPointer { buffer in
            vsh_jpeg_decode(
                buffer.baseAddress, UInt(buffer.count), UInt32(max(1, minWidth)), UInt32(max(1, minHeight)),
                UInt(maxPixels), UInt64(PhotoReader.maxPixels), Int32(maxScans), Int(maxMemory),
                refuseDamaged ? 1 : 0, &pointer, &width, &height, &message, message.count)
        }
        guard status == 0, let pointer else {
            let text = Self.text(message)
            if text.hasPrefix("Backing store") || text.hasPrefix("Insufficient memory") {
                throw JPEGCodecError.decode(
                    "decoding it would take more than \(maxMemory >> 20) MiB (a progressive image keeps every"
                        + " coefficient of its declared size)")
            }
            throw JPEGCodecError.decode(text.isEmpty ? "cannot decode the JPEG" : text)
        }
        defer { free(pointer) }
        let count = Int(width) * Int(height) * 3
        return RGBImage(
            width: Int(width), height: Int(height),
            pixels: Array(UnsafeBufferPointer(start: pointer, count: count)))
    }

    /// A C message buffer as text: the bytes up to the first NUL, as UTF-8.
    static func text(_ message: [CChar]) -> String {
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes an image as a JPEG, atomically (a temporary file, then rename).
    public static func write(_ image: RGBImage, to path: String, quality: Int = 88) throws {
        let temporary = path + ".tmp-\(getpid())"
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { buffer in
            vsh_jpeg_encode(
                temporary, buffer.baseAddress, UInt32(image.width), UInt32(image.height), Int32(quality),
                &message, message.count)
        }
        guard status == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            let text = Self.text(message)
            throw JPEGCodecError.write(path: path, message: text.isEmpty ? "cannot write the file" : text)
        }
    }
}

/// libjpeg refused to decode or encode an image; the message is libjpeg's.
public enum JPEGCodecError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// A corrupt or unsupported JPEG.
    case decode(String)
    /// The output file could not be written.
    case write(path: String, message: String)

    /// libjpeg's message (and the file, for writing).
    public var description: String {
        switch self {
        case .decode(let message): return message
        case .write(let path, let message): return "\(path): \(message)"
        }
    }

    /// Invalid data for a bad image, a storage failure for a file that cannot be written (a full
    /// disk, a read-only folder), unavailable input for one whose folder does not exist.
    public var errorKind: ErrorKind {
        if case .write(_, let message) = self {
            return message.hasPrefix("cannot create") ? .unavailableInput : .storageFailure
        }
        return .invalidData
    }
}
