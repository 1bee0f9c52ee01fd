import CQREncode
import Foundation
import VSHCore

/// A QR code (libqrencode, error correction M: a printed code survives a scuff) as SVG or PNG.
public struct QRCode: Sendable {
    /// The modules, row by row: true is dark.
    public let modules: [[Bool]]

    /// The longest text encoded: a URL with a code fits many times over.
    public static let maxTextBytes = 1024

    /// The QR code of `text`, or nil when it cannot be encoded (too long, or libqrencode refused).
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maxTextBytes,
            let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M)
        else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        // Bit 0 of each byte is the module's colour (the others are libqrencode's own notes).
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// The side in modules.
    public var width: Int { modules.count }

    /// An SVG of the code with the four-module quiet zone a scanner needs: one path of dark
    /// squares, `module` user units each, crisp at any size.
    public func svg(module: Int = 8, title: String? = nil) -> String {
        let side = (width + 8) * module
        let path = pathData(module: module)
        let label = title.map { "<title>\(Markup.escaped($0))</title>" } ?? ""
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(side)" height="\(side)" shape-rendering="crispEdges">\(label)<rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }

    /// The dark modules as SVG path data, `module` user units each, after the four-module quiet
    /// zone: a run of dark modules in a row is one rectangle.
    public func pathData(module: Int = 1) -> String {
        var path = ""
        for (y, row) in modules.enumerated() {
            var x = 0
            while x < row.count {
                guard row[x] else {
                    x += 1
                    continue
                }
                // A run of dark modules in the row is one rectangle.
                var end = x
                while end < row.count && row[end] { end += 1 }
                path +=
                    "M\((x + 4) * module) \((y + 4) * module)h\((end - x) * module)v\(module)h-\((end - x) * module)z"
                x = end
            }
        }
        return path
    }

    /// A greyscale PNG of the code with the quiet zone, `scale` pixels a module.
    public func png(scale: Int = 8) -> [UInt8] {
        let side = (width + 8) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity((side + 1) * side)
        for py in 0..<side {
            raw.append(0)  // filter: none
            let y = py / scale - 4
            for px in 0..<side {
                let x = px / scale - 4
                let dark = y >= 0 && y < width && x >= 0 && x < width && modules[y][x]
                raw.append(dark ? 0 : 255)
            }
        }
        var header: [UInt8] = []
        PNG.appendBigEndian(UInt32(side), to: &header)
        PNG.appendBigEndian(UInt32(side), to: &header)
        header += [8, 0, 0, 0, 0]  // 8-bit greyscale, deflate, adaptive filtering, no interlace
        return PNG.signature + PNG.chunk("IHDR", header) + PNG.chunk("IDAT", PNG.zlibStored(raw))
            + PNG.chunk("IEND", [])
    }
}

/// The little of PNG a QR code needs: chunks with their CRC, and zlib's stored (uncompressed)
/// blocks, which every decoder reads (a QR code PNG is tens of kilobytes).
enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        appendBigEndian(UInt32(data.count), to: &out)
        let body = Array(type.utf8) + data
        out += body
        appendBigEndian(crc32(body), to: &out)
        return out
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// A zlib stream of stored blocks (at most 65,535 bytes each) with its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let last: UInt8 = offset + length == data.count ? 1 : 0
            out += [
                last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF),
                UInt8((~length >> 8) & 0xFF),
            ]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        appendBigEndian(b << 16 | a, to: &out)
        return out
    }
}
