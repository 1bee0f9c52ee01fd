import Foundation
import VSHCore
public import VSHPhoto

/// Profile pictures: a player's upload turned upright, cropped to a square, scaled to
/// `side` pixels and encoded anew by libjpeg. Nothing of the upload's metadata survives (no
/// EXIF, no GPS, no camera, no thumbnail): the new file holds pixels and a JFIF header only.
public enum Avatar {
    /// The side of the square picture, in pixels.
    public static let side = 256

    /// The re-encoded picture of a JPEG upload.
    /// - Parameters:
    ///   - bytes: the uploaded JPEG.
    ///   - folder: a private folder for the encoder's temporary file.
    ///   - side: the square's side in pixels (`Avatar.side` for profile pictures; larger for the
    ///     thumbnails of check-in photos a moderator looks at).
    /// - Throws: `JPEGCodecError.decode` for what libjpeg cannot read.
    public static func make(from bytes: [UInt8], folder: String, side: Int = side) throws -> [UInt8] {
        let image = try PhotoDecoder.decode(bytes, covering: side, side)
        let orientation = PhotoReader.metadata(bytes: bytes)?.orientation ?? 1
        var square = RGBImage(width: side, height: side)
        square.draw(image, orientation: orientation, x: 0, y: 0, width: side, height: side)
        return try encode(square, folder: folder)
    }

    /// A JPEG drawn anew, upright, its longer side at most `longest` pixels, without any metadata
    /// (an organiser's hunt and stop images keep no camera, owner or GPS tag when served).
    public static func fitted(from bytes: [UInt8], folder: String, longest: Int) throws -> [UInt8] {
        let image = try PhotoDecoder.decode(bytes, covering: longest, longest)
        let orientation = PhotoReader.metadata(bytes: bytes)?.orientation ?? 1
        let turned = orientation >= 5
        let (w, h) = turned ? (image.height, image.width) : (image.width, image.height)
        let scale = min(1, Double(longest) / Double(max(w, h, 1)))
        let width = max(1, Int((Double(w) * scale).rounded()))
        let height = max(1, Int((Double(h) * scale).rounded()))
        // Upright and small enough already: the decoded pixels are the picture (no copy drawn).
        if orientation <= 1 && width == image.width && height == image.height {
            return try encode(image, folder: folder)
        }
        var canvas = RGBImage(width: width, height: height)
        canvas.draw(image, orientation: orientation, x: 0, y: 0, width: width, height: height)
        return try encode(canvas, folder: folder)
    }

    /// `image` encoded by libjpeg (quality 85) through a private temporary file in `folder`.
    public static func encode(_ image: RGBImage, folder: String) throws -> [UInt8] {
        let path = folder + "/picture-\(UUID().uuidString).jpg"
        defer { unlink(path) }
        try JPEGCodec.write(image, to: path, quality: 85)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JPEGCodecError.write(path: path, message: "cannot read the encoded picture back")
        }
        return [UInt8](data)
    }
}
