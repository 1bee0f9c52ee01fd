import VSHCore

/// Where the parts of a JPEG file are (ITU T.81 B.1): the EXIF APP1 payload,
/// the frame header's pixel size, and the segments that make the image.
/// Found by walking segment headers only; the pixels are never decoded.
struct JPEGLayout {
    /// The first APP1 segment's payload starting with `Exif\0\0`.
    var exifPayload: [UInt8]?
    var width: Int?
    var height: Int?
    /// Byte ranges that make the image (every segment but APPn and COM, then
    /// the scans to EOI), in file order: what the image identity hashes.
    var imageRanges: [Range<Int>] = []
    /// The metadata segments an archived copy keeps (`PhotoReader.photoAndArchive`): the first JFIF
    /// APP0 and Adobe APP14 (they tell a decoder the colour transform) and the EXIF APP1 that
    /// `exifPayload` is, whole segments with their markers, in file order.
    var keptMetadataRanges: [Range<Int>] = []
    /// Whether a start-of-scan was reached (the file has image data).
    var sawScan = false
    /// What is wrong with the structure, if the walk had to stop early.
    var problem: String?

    /// Walks the segments. Reads go through `BufferedRead` (or bytes in memory): a file
    /// of many tiny segments or fill bytes costs a read a 64 KiB window, not one a segment.
    /// - Parameters:
    ///   - size: the file's size in bytes.
    ///   - read: returns up to `count` bytes at `offset` (fewer at the end of the file).
    ///   - throughScans: also walk the entropy-coded scans to EOI (needs the whole
    ///     file; for hashing). Without it the walk stops at the first scan.
    static func walk(size: Int, throughScans: Bool, read: (_ offset: Int, _ count: Int) -> [UInt8])
        -> JPEGLayout
    {
        var layout = JPEGLayout()
        var offset = 2
        var keptMarkers: Set<UInt8> = []  // the APP0 and APP14 already kept: only the first of each
        while true {
            let header = read(offset, 4)
            guard header.count >= 2 else {
                layout.problem = "truncated before the image data"
                return layout
            }
            guard header[0] == 0xFF else {
                // Extraneous bytes between segments (a segment length a few bytes
                // short, as some XMP writers do): skip to the next marker, as
                // libjpeg's next_marker() does, instead of giving up.
                guard let next = nextMarker(from: offset, size: size, read: read) else {
                    layout.problem = "no marker at byte \(offset)"
                    return layout
                }
                offset = next
                continue
            }
            var marker = header[1]
            var markerOffset = offset
            // Fill bytes: any number of 0xFF before the marker code, skipped a chunk at a time
            // (16 MiB of them used to cost a read each).
            if marker == 0xFF {
                var probe = offset + 1
                while true {
                    let chunk = read(probe, 1 << 16)
                    guard !chunk.isEmpty else {
                        layout.problem = "truncated before the image data"
                        return layout
                    }
                    if let index = chunk.firstIndex(where: { $0 != 0xFF }) {
                        markerOffset = probe + index - 1
                        marker = chunk[index]
                        break
                    }
                    probe += chunk.count
                }
            }
            if marker == 0xD9 {  // EOI before any scan
                layout.problem = layout.sawScan ? nil : "no image data"
                return layout
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // standalone markers
                offset = markerOffset + 2
                continue
            }
            let lengthBytes = read(markerOffset + 2, 2)
            guard lengthBytes.count == 2 else {
                layout.problem = "truncated segment header at byte \(markerOffset)"
                return layout
            }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, markerOffset + 2 + length <= size else {
                layout.problem = "segment at byte \(markerOffset) runs past the end of the file"
                return layout
            }
            let segmentEnd = markerOffset + 2 + length
            let isMetadata = (0xE0...0xEF).contains(marker) || marker == 0xFE
            if !isMetadata { layout.imageRanges.append(markerOffset..<segmentEnd) }
            if (marker == 0xE0 || marker == 0xEE) && !layout.sawScan && keptMarkers.insert(marker).inserted {
                layout.keptMetadataRanges.append(markerOffset..<segmentEnd)
            }
            // EXIF is the first APP1 "Exif" segment before the image data, where exiftool, Pillow
            // and libexif look: one found after a scan is not read (a forged position hidden
            // there once scored while every inspection tool showed no GPS).
            if marker == 0xE1, layout.exifPayload == nil, !layout.sawScan, length >= 8 {
                let payload = read(markerOffset + 4, length - 2)
                if payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) {
                    layout.exifPayload = payload
                    layout.keptMetadataRanges.append(markerOffset..<segmentEnd)
                }
            }
            if isStartOfFrame(marker), layout.width == nil, length >= 7 {
                let frame = read(markerOffset + 4, 5)
                if frame.count == 5 {
                    layout.height = Int(frame[1]) << 8 | Int(frame[2])
                    layout.width = Int(frame[3]) << 8 | Int(frame[4])
                }
            }
            if marker == 0xDA {  // SOS: entropy-coded data follows
                layout.sawScan = true
                guard throughScans else { return layout }
                guard let end = scanEnd(from: segmentEnd, size: size, read: read) else {
                    // Truncated scan (no EOI): hash what is there.
                    layout.imageRanges.append(segmentEnd..<size)
                    return layout
                }
                layout.imageRanges.append(segmentEnd..<end)
                offset = end
                continue
            }
            offset = segmentEnd
        }
    }

    /// The offset of the next 0xFF followed by a marker code (not 0x00, not 0xFF) at or after `start`.
    static func nextMarker(from start: Int, size: Int, read: (Int, Int) -> [UInt8]) -> Int? {
        var offset = start
        while offset < size - 1 {
            let bytes = read(offset, min(1 << 16, size - offset))
            guard bytes.count >= 2 else { return nil }
            for i in 0..<(bytes.count - 1)
            where bytes[i] == 0xFF && bytes[i + 1] != 0x00 && bytes[i + 1] != 0xFF {
                return offset + i
            }
            offset += bytes.count - 1
        }
        return nil
    }

    /// SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The offset of the first marker after entropy-coded data that is not a
    /// stuffed 0xFF00 or a restart marker, or nil at the end of the file.
    static func scanEnd(from start: Int, size: Int, read: (Int, Int) -> [UInt8]) -> Int? {
        var offset = start
        let chunk = 1 << 16
        while offset < size {
            let bytes = read(offset, min(chunk + 1, size - offset))
            if bytes.count < 2 { return nil }
            var i = 0
            while i < bytes.count - 1 {
                if bytes[i] == 0xFF {
                    let next = bytes[i + 1]
                    if next != 0x00 && next != 0xFF && !(0xD0...0xD7).contains(next) { return offset + i }
                }
                i += 1
            }
            offset += bytes.count - 1
        }
        return nil
    }
}

/// Reads of a file through a 64 KiB window: the segment walk asks for a few bytes at a time.
final class BufferedRead {
    let file: OpenFile
    private var window: [UInt8] = []
    private var windowStart = 0
    /// How many times the file itself was read.
    private(set) var windowReads = 0
    static let windowSize = 1 << 16

    init(_ file: OpenFile) { self.file = file }

    /// Up to `count` bytes at `offset`; fewer at the end of the file.
    func read(_ offset: Int, _ count: Int) -> [UInt8] {
        guard count > 0, offset >= 0, offset < file.size else { return [] }
        let end = min(offset + count, file.size)
        if offset >= windowStart, end <= windowStart + window.count {
            return Array(window[(offset - windowStart)..<(end - windowStart)])
        }
        windowReads += 1
        if count >= Self.windowSize { return file.read(at: offset, count: count) }
        window = file.read(at: offset, count: Self.windowSize)
        windowStart = offset
        return Array(window.prefix(end - offset))
    }
}
