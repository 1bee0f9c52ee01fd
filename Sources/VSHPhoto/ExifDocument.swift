internal import CExif
import Foundation
import VSHCore

/// A parsed EXIF block, owned: libexif's `ExifData`, unref'd in `deinit`.
/// Values are read with the block's byte order (`exif_get_rational` and kin),
/// after checking each entry's format and size.
final class ExifDocument {
    private let data: UnsafeMutablePointer<ExifData>
    private let order: ExifByteOrder

    /// - Parameter payload: an APP1 payload beginning with `Exif\0\0`.
    init?(payload: [UInt8]) {
        guard let data = exif_data_new() else { return nil }
        // Read what is there: no "fixing" to the specification (it adds default
        // tags) and no dropping of tags libexif does not know.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        payload.withUnsafeBufferPointer { buffer in
            exif_data_load_data(data, buffer.baseAddress, UInt32(buffer.count))
        }
        self.data = data
        self.order = exif_data_get_byte_order(data)
    }

    deinit { exif_data_unref(data) }

    enum Directory { case ifd0, exif, gps }

    private func entry(_ directory: Directory, _ tag: UInt32) -> ExifEntry? {
        let ifds = data.pointee.ifd
        let content: UnsafeMutablePointer<ExifContent>?
        switch directory {
        case .ifd0: content = ifds.0
        case .exif: content = ifds.2
        case .gps: content = ifds.3
        }
        guard let content, let entry = exif_content_get_entry(content, ExifTag(rawValue: tag)) else {
            return nil
        }
        let value = entry.pointee
        guard value.data != nil, value.components > 0, value.components < 1 << 20 else { return nil }
        let unit = Int(exif_format_get_size(value.format))
        guard unit > 0, Int(value.size) >= unit * Int(value.components) else { return nil }
        return value
    }

    /// A rational component as numerator and denominator (signed or not).
    struct Ratio: Equatable {
        var numerator: Double
        var denominator: Double
        var value: Double? { denominator == 0 ? nil : numerator / denominator }
        var isZeroOverZero: Bool { numerator == 0 && denominator == 0 }
    }

    /// RATIONAL or SRATIONAL components of a tag.
    func ratios(_ directory: Directory, _ tag: UInt32) -> [Ratio]? {
        guard let entry = entry(directory, tag) else { return nil }
        let count = Int(entry.components)
        switch entry.format {
        case EXIF_FORMAT_RATIONAL:
            return (0..<count).map { i in
                let r = exif_get_rational(entry.data + i * 8, order)
                return Ratio(numerator: Double(r.numerator), denominator: Double(r.denominator))
            }
        case EXIF_FORMAT_SRATIONAL:
            return (0..<count).map { i in
                let r = exif_get_srational(entry.data + i * 8, order)
                return Ratio(numerator: Double(r.numerator), denominator: Double(r.denominator))
            }
        default:
            return nil
        }
    }

    /// An ASCII tag up to its first NUL, trimmed; nil when absent or empty.
    func text(_ directory: Directory, _ tag: UInt32) -> String? {
        guard let entry = entry(directory, tag),
            entry.format == EXIF_FORMAT_ASCII || entry.format == EXIF_FORMAT_UNDEFINED
        else { return nil }
        let bytes = UnsafeBufferPointer(start: entry.data, count: Int(entry.size))
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        let text = String(decoding: bytes[..<end], as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// A BYTE or SHORT tag's first value.
    func integer(_ directory: Directory, _ tag: UInt32) -> Int? {
        guard let entry = entry(directory, tag) else { return nil }
        switch entry.format {
        case EXIF_FORMAT_BYTE: return Int(entry.data[0])
        case EXIF_FORMAT_SHORT: return Int(exif_get_short(entry.data, order))
        case EXIF_FORMAT_LONG: return Int(exif_get_long(entry.data, order))
        default: return nil
        }
    }
}

// The EXIF and GPS tags vsh reads (EXIF 2.32, tables 4 and 15).
enum Tag {
    static let make: UInt32 = 0x010F
    static let model: UInt32 = 0x0110
    static let software: UInt32 = 0x0131
    static let orientation: UInt32 = 0x0112
    static let dateTimeOriginal: UInt32 = 0x9003
    static let offsetTimeOriginal: UInt32 = 0x9011
    static let subSecTimeOriginal: UInt32 = 0x9291
    static let gpsLatitudeRef: UInt32 = 0x0001
    static let gpsLatitude: UInt32 = 0x0002
    static let gpsLongitudeRef: UInt32 = 0x0003
    static let gpsLongitude: UInt32 = 0x0004
    static let gpsAltitudeRef: UInt32 = 0x0005
    static let gpsAltitude: UInt32 = 0x0006
    static let gpsTimeStamp: UInt32 = 0x0007
    static let gpsDateStamp: UInt32 = 0x001D
    static let gpsHPositioningError: UInt32 = 0x001F
}
