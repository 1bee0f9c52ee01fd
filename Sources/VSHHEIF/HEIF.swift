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

    /// The primary image decoded to RGB, as shown (rotation and mirroring applied).
    public static func decode(_ bytes: [UInt8], maxPixels: Int) throws -> Pixels {
        try withPrimaryImage(bytes, maxPixels: maxPixels) { _, handle, _, _ in try pixels(handle) }
    }

    /// The header and the decoded pixels, from one reading of the container (a check-in needs both).
    public static func read(_ bytes: [UInt8], maxPixels: Int) throws -> (header: Header, pixels: Pixels) {
        try withPrimaryImage(bytes, maxPixels: maxPixels) { _, handle, width, height in
            (Header(width: width, height: height, exifTIFF: exif(handle)), try pixels(handle))
        }
    }

    private static func pixels(_ handle: OpaquePointer) throws -> Pixels {
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
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                memcpy(out.baseAddress! + row * width * 3, plane + row * Int(stride), width * 3)
            }
        }
        return Pixels(width: width, height: height, rgb: rgb)
    }

    private static func withPrimaryImage<T>(
        _ bytes: [UInt8], maxPixels: Int,
        _ body: (OpaquePointer, OpaquePointer, Int, Int) throws -> T
    ) throws -> T {
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
                    description: "it declares \(width) x \(height) pixels, more than any camera makes")
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
