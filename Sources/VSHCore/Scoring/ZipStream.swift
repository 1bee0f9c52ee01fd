/// A ZIP archive written as it goes (PKWARE APPNOTE 6.3): each file stored as it is (photos do not
/// compress), its local header and bytes handed out at once, only the small central directory kept
/// until the end. ZIP64 records are written when the archive passes 4 GiB or 65,535 files, so a
/// 2,000-photo export of large photos is still one archive any unzip reads.
public struct ZipStream: Sendable {
    private struct Entry {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt64
        var offset: UInt64
    }

    private var entries: [Entry] = []
    private var offset: UInt64 = 0
    /// The DOS date and time stamped on every file.
    private let dosTime: UInt16
    private let dosDate: UInt16

    /// A stream whose files are dated `year`-`month`-`day` `hour`:`minute` (the export's time).
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        dosTime = UInt16(hour << 11 | minute << 5)
        dosDate = UInt16(max(0, year - 1980) << 9 | month << 5 | day)
    }

    /// The bytes of one file (its local header, then its content).
    public mutating func file(_ name: String, _ content: [UInt8]) -> [UInt8] {
        let nameBytes = Array(name.utf8)
        let crc = CRC32.of(content)
        let size = UInt64(content.count)
        var out: [UInt8] = []
        out.reserveCapacity(30 + nameBytes.count + content.count)
        out.append(le32: 0x0403_4b50)
        out.append(le16: 45)  // version needed: ZIP64
        out.append(le16: 1 << 11)  // UTF-8 names
        out.append(le16: 0)  // stored
        out.append(le16: dosTime)
        out.append(le16: dosDate)
        out.append(le32: crc)
        out.append(le32: UInt32(min(size, 0xFFFF_FFFF)))
        out.append(le32: UInt32(min(size, 0xFFFF_FFFF)))
        out.append(le16: UInt16(nameBytes.count))
        out.append(le16: 0)
        out += nameBytes
        out += content
        entries.append(Entry(name: nameBytes, crc: crc, size: size, offset: offset))
        offset += UInt64(out.count)
        return out
    }

    /// The central directory and the end records: the archive's last bytes.
    public func finish() -> [UInt8] {
        var out: [UInt8] = []
        let directoryStart = offset
        for entry in entries {
            let big = entry.offset >= 0xFFFF_FFFF
            out.append(le32: 0x0201_4b50)
            out.append(le16: 45 | 3 << 8)  // made by: Unix
            out.append(le16: 45)
            out.append(le16: 1 << 11)
            out.append(le16: 0)
            out.append(le16: dosTime)
            out.append(le16: dosDate)
            out.append(le32: entry.crc)
            out.append(le32: UInt32(entry.size))
            out.append(le32: UInt32(entry.size))
            out.append(le16: UInt16(entry.name.count))
            out.append(le16: big ? 12 : 0)  // extra: the ZIP64 offset
            out.append(le16: 0)
            out.append(le16: 0)
            out.append(le16: 0)
            out.append(le32: 0o100644 << 16)  // a regular file, rw-r--r--
            out.append(le32: big ? 0xFFFF_FFFF : UInt32(entry.offset))
            out += entry.name
            if big {
                out.append(le16: 0x0001)
                out.append(le16: 8)
                out.append(le64: entry.offset)
            }
        }
        let directorySize = UInt64(out.count)
        let zip64 = entries.count >= 0xFFFF || directoryStart >= 0xFFFF_FFFF
        if zip64 {
            let recordOffset = directoryStart + directorySize
            out.append(le32: 0x0606_4b50)
            out.append(le64: 44)
            out.append(le16: 45)
            out.append(le16: 45)
            out.append(le32: 0)
            out.append(le32: 0)
            out.append(le64: UInt64(entries.count))
            out.append(le64: UInt64(entries.count))
            out.append(le64: directorySize)
            out.append(le64: directoryStart)
            out.append(le32: 0x0706_4b50)
            out.append(le32: 0)
            out.append(le64: recordOffset)
            out.append(le32: 1)
        }
        out.append(le32: 0x0605_4b50)
        out.append(le16: 0)
        out.append(le16: 0)
        out.append(le16: UInt16(min(entries.count, 0xFFFF)))
        out.append(le16: UInt16(min(entries.count, 0xFFFF)))
        out.append(le32: UInt32(min(directorySize, 0xFFFF_FFFF)))
        out.append(le32: zip64 ? 0xFFFF_FFFF : UInt32(directoryStart))
        out.append(le16: 0)
        return out
    }
}

/// CRC-32 (ISO-HDLC, the ZIP and PNG one).
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 of `bytes`.
    public static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func append(le16 v: UInt16) { append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)]) }
    fileprivate mutating func append(le32 v: UInt32) {
        append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)])
    }
    fileprivate mutating func append(le64 v: UInt64) {
        append(le32: UInt32(v & 0xFFFF_FFFF))
        append(le32: UInt32(v >> 32))
    }
}
