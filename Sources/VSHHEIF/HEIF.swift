internal import CHEIF
import Foundation

/// HEIC/HEIF photos (the iPhone camera's default format) through libheif: the container's
/// EXIF block and the primary image's pixels. The only importer of libheif.
public enum HEIF {
    /// Whether `bytes` begin like a HEIF file libheif can read (an `ftyp` box with a HEIF brand).
    public static func isHEIF(_ bytes: [UInt8]) -> Bool {
        // Every ISO media file starts with its `ftyp` box: anything else (a JPEG) is not asked of
        // libheif, which is then not loaded at all. Without libheif, a file that looks like one
        // is taken as one, so that reading it says what is missing.
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        guard vsh_heif_library() != nil else { return true }
        let result = bytes.withUnsafeBufferPointer {
            vsh_heif_check_filetype($0.baseAddress, Int32(min($0.count, 64)))
        }
        return result == heif_filetype_yes_supported || result == heif_filetype_yes_unsupported
    }

    /// What a HEIF file holds of a photo without decoding it.
    public struct Header: Sendable {
        /// The primary image's size as shown (libheif applies the container's rotation and mirroring).
        public var width: Int
        public var height: Int
        /// The EXIF block's TIFF data (from its byte-order mark on), if the file has one.
        public var exifTIFF: [UInt8]?
    }

    /// An 8-bit RGB image, rows top to bottom.
    public struct Pixels: Sendable {
        public var width: Int
        public var height: Int
        public var rgb: [UInt8]
    }

    /// Why a HEIF file could not be read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The primary image's size and EXIF block.
    public static func header(_ bytes: [UInt8], maxPixels: Int) throws -> Header {
        try withPrimaryImage(bytes, maxPixels: maxPixels) { _, handle, width, height in
            Header(width: width, height: height, exifTIFF: exif(handle))
        }
    }

    /// The most pixels a decode may produce, counting every tile a grid names as often as it names
    /// it. The largest HEIC a phone takes, Apple's 48-megapixel "HEIF Max" (8064 x 6048), fits; a
    /// 4 KB grid that names one tile 1,521 times (399 megapixels, 1.7 GB and 20 s in libheif) is
    /// refused before anything is decoded.
    public static let maxDecodedPixels = 50_000_000

    /// The primary image decoded to RGB, as shown (rotation and mirroring applied), averaged down
    /// by the largest whole factor (up to 8) that still covers `minWidth` x `minHeight`: the full
    /// image is never copied out of libheif.
    /// - Throws: `ReadError` for a file libheif cannot read, or one over `maxDecodedPixels`.
    public static func decode(_ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int) throws -> Pixels {
        try withPrimaryImage(bytes, maxPixels: maxDecodedPixels, decoding: true) { _, handle, _, _ in
            try pixels(handle, covering: minWidth, minHeight)
        }
    }

    /// The header and the decoded pixels (as `decode(_:covering:_:)` gives them), from one reading
    /// of the container (a check-in needs both).
    public static func read(_ bytes: [UInt8], covering minWidth: Int, _ minHeight: Int) throws -> (
        header: Header, pixels: Pixels
    ) {
        try withPrimaryImage(bytes, maxPixels: maxDecodedPixels, decoding: true) { _, handle, width, height in
            (
                Header(width: width, height: height, exifTIFF: exif(handle)),
                try pixels(handle, covering: minWidth, minHeight)
            )
        }
    }

    private static func pixels(_ handle: OpaquePointer, covering minWidth: Int, _ minHeight: Int) throws
        -> Pixels
    {
        var image: OpaquePointer?
        let error = vsh_heif_decode_image(
            handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil)
        guard error.code == heif_error_Ok, let image else { throw ReadError(description: message(error)) }
        defer { vsh_heif_image_release(image) }
        let width = Int(vsh_heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(vsh_heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0,
            let plane = vsh_heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)
        else { throw ReadError(description: "the image has no pixels") }
        return reduce(
            plane, stride: Int(stride), width: width, height: height, covering: minWidth, minHeight)
    }

    /// Interleaved RGB rows averaged down by the largest of 8, 4 and 2 that still covers the size
    /// (each output pixel the integer mean of its square), or copied as they are.
    static func reduce(
        _ plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, covering minWidth: Int,
        _ minHeight: Int
    ) -> Pixels {
        var factor = 1
        for candidate in [8, 4, 2] where width / candidate >= minWidth && height / candidate >= minHeight {
            factor = candidate
            break
        }
        let w = width / factor
        let h = height / factor
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let area = factor * factor
        out.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                for x in 0..<w {
                    var sums = (0, 0, 0)
                    for dy in 0..<factor {
                        var i = (y * factor + dy) * stride + x * factor * 3
                        for _ in 0..<factor {
                            sums.0 += Int(plane[i])
                            sums.1 += Int(plane[i + 1])
                            sums.2 += Int(plane[i + 2])
                            i += 3
                        }
                    }
                    let o = (y * w + x) * 3
                    out[o] = UInt8(sums.0 / area)
                    out[o + 1] = UInt8(sums.1 / area)
                    out[o + 2] = UInt8(sums.2 / area)
                }
            }
        }
        return Pixels(width: w, height: h, rgb: out)
    }

    private static func withPrimaryImage<T>(
        _ bytes: [UInt8], maxPixels: Int, decoding: Bool = false,
        _ body: (OpaquePointer, OpaquePointer, Int, Int) throws -> T
    ) throws -> T {
        if decoding, let cost = HEIFItems(bytes).primaryDecodedPixels, cost > maxPixels {
            throw ReadError(
                description:
                    "decoding it would take \(cost / 1_000_000) megapixels (each tile its grid names,"
                    + " as often as it names it), more than the \(maxPixels / 1_000_000)-megapixel budget")
        }
        if let error = vsh_heif_load_error() {
            throw ReadError(
                description: "HEIC photos need libheif, which cannot be loaded (\(String(cString: error)))")
        }
        guard let context = vsh_heif_context_alloc() else { throw ReadError(description: "out of memory") }
        defer { vsh_heif_context_free(context) }
        // Refuse declared sizes beyond any camera's before anything is decoded.
        vsh_heif_context_set_maximum_image_size_limit(context, 40_000)
        return try bytes.withUnsafeBufferPointer { buffer in
            let read = vsh_heif_context_read_from_memory_without_copy(
                context, buffer.baseAddress, buffer.count, nil)
            guard read.code == heif_error_Ok else { throw ReadError(description: message(read)) }
            var handle: OpaquePointer?
            let primary = vsh_heif_context_get_primary_image_handle(context, &handle)
            guard primary.code == heif_error_Ok, let handle else {
                throw ReadError(description: message(primary))
            }
            defer { vsh_heif_image_handle_release(handle) }
            let width = Int(vsh_heif_image_handle_get_width(handle))
            let height = Int(vsh_heif_image_handle_get_height(handle))
            guard width > 0, height > 0 else { throw ReadError(description: "zero pixel size") }
            guard width * height <= maxPixels else {
                throw ReadError(
                    description: decoding
                        ? "it declares \(width) x \(height) pixels, more than the \(maxPixels / 1_000_000)"
                            + "-megapixel budget for decoding"
                        : "it declares \(width) x \(height) pixels, more than any camera makes")
            }
            return try body(context, handle, width, height)
        }
    }

    /// The first EXIF block's TIFF data: the block starts with a 4-byte offset to the TIFF header.
    private static func exif(_ handle: OpaquePointer) -> [UInt8]? {
        guard vsh_heif_image_handle_get_number_of_metadata_blocks(handle, "Exif") > 0 else { return nil }
        var id: heif_item_id = 0
        guard vsh_heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else {
            return nil
        }
        let size = vsh_heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size <= 1 << 20 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        let error = block.withUnsafeMutableBytes {
            vsh_heif_image_handle_get_metadata(handle, id, $0.baseAddress)
        }
        guard error.code == heif_error_Ok else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset >= 0, 4 + offset < block.count else { return nil }
        return Array(block[(4 + offset)...])
    }

    private static func message(_ error: heif_error) -> String {
        guard let text = error.message else { return "libheif error \(error.code.rawValue)" }
        let message = String(cString: text)
        return message.isEmpty ? "libheif error \(error.code.rawValue)" : message
    }
}
