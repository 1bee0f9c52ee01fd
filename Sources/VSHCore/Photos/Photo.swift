import Foundation

/// A photo as the verifier sees it: its metadata and its identities.
public struct Photo: Sendable {
    /// The EXIF metadata.
    public var metadata: PhotoMetadata
    /// SHA-256 of the whole file: names the stored copy (content-addressed).
    public var fileSHA256: String
    /// SHA-256 of the image data only: every JPEG segment except APPn and COM
    /// (so EXIF, XMP and comments are left out), plus the scan data up to EOI.
    /// Re-tagging a photo's EXIF does not change it; appending bytes does not either.
    public var imageSHA256: String
    /// The file's size in bytes.
    public var byteCount: Int
    /// SHA-256 of the decoded pixels, upright (VSHPhoto's `PixelIdentity`): equal for files that
    /// store the same picture differently (`jpegtran -optimize`, inserted no-op segments). Nil
    /// for a photo recorded before pixels were hashed.
    public var pixelSHA256: String?
    /// The 64-bit DCT perceptual hash of the decoded pixels: near for a re-saved, scaled,
    /// slightly cropped or brightened copy. Nil as `pixelSHA256`.
    public var perceptualHash: UInt64?

    /// A photo from its metadata and identities.
    public init(
        metadata: PhotoMetadata, fileSHA256: String, imageSHA256: String, byteCount: Int,
        pixelSHA256: String? = nil, perceptualHash: UInt64? = nil
    ) {
        self.metadata = metadata
        self.fileSHA256 = fileSHA256
        self.imageSHA256 = imageSHA256
        self.byteCount = byteCount
        self.pixelSHA256 = pixelSHA256
        self.perceptualHash = perceptualHash
    }
}

/// Why a photo file could not be read. Bad input: exit 65 (missing file: 66).
public enum PhotoError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    case unreadable(file: String)
    case empty(file: String)
    case notJPEG(file: String)
    case corrupt(file: String, reason: String)
    /// A HEIC/HEIF file libheif cannot read (cut short, damaged, an unsupported coding).
    case corruptHEIF(file: String, reason: String)
    case tooLarge(file: String, bytes: Int, limit: Int)
    case absurdDimensions(file: String, width: Int, height: Int)

    /// `file: problem`, one line.
    public var description: String {
        switch self {
        case .unreadable(let file): return "\(file): cannot open the photo"
        case .empty(let file): return "\(file): the file is empty"
        case .notJPEG(let file): return "\(file): not a JPEG file"
        case .corrupt(let file, let reason): return "\(file): corrupt JPEG (\(reason))"
        case .corruptHEIF(let file, let reason):
            return "\(file): unreadable HEIC (\(reason.trimmingCharacters(in: .whitespaces)))"
        case .tooLarge(let file, let bytes, let limit):
            return "\(file): the photo is \(bytes / 1_048_576) MiB; the limit is \(limit / 1_048_576) MiB"
        case .absurdDimensions(let file, let width, let height):
            return "\(file): the JPEG declares \(width) x \(height) pixels, more than any camera makes"
        }
    }

    /// Unavailable input for a file that cannot be opened, else invalid data.
    public var errorKind: ErrorKind {
        if case .unreadable = self { return .unavailableInput }
        return .invalidData
    }

    /// A short message for `vsh exif --json`'s `error` field (without the file name).
    public var reason: String {
        let text = description
        guard let colon = text.range(of: ": ") else { return text }
        return String(text[colon.upperBound...])
    }
}
