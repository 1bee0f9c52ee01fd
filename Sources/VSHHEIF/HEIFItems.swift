/// What decoding a HEIF file's primary image would cost, read from its boxes (ISO/IEC 23008-12,
/// ISO/IEC 14496-12) before libheif decodes anything.
///
/// A grid image (`grid`) or an overlay (`iovl`) is drawn from the images its `dimg` references
/// name, and a reference may name the same tile any number of times: 4 KB can declare a 39 x 39
/// grid of one 512-pixel tile, 399 megapixels that libheif decodes one tile at a time (20 s and
/// 1.7 GB). The cost is counted here as libheif would spend it: every reference decodes its
/// image again, and every derived image also fills its own canvas.
struct HEIFItems {
    /// Pixels decoded for the primary image: each referenced tile's `ispe` area once per
    /// reference, plus every canvas. Nil when the boxes do not say (libheif then decides).
    let primaryDecodedPixels: Int?

    /// Reads the `meta` box's item structure; never traps on any input, and stops counting past
    /// `ceiling` (a file that declares more is over any budget anyway).
    init(_ bytes: [UInt8], ceiling: Int = 1 << 40) {
        primaryDecodedPixels = Self.decodedPixels(bytes, ceiling: ceiling)
    }

    private static func decodedPixels(_ bytes: [UInt8], ceiling: Int) -> Int? {
        let top = Boxes(bytes, 0..<bytes.count)
        guard let meta = top.first("meta"), meta.count >= 4 else { return nil }
        let inside = Boxes(bytes, (meta.lowerBound + 4)..<meta.upperBound)  // a full box: version, flags
        guard let primary = inside.first("pitm").flatMap({ pitm(bytes, $0) }) else { return nil }
        let types = inside.first("iinf").map { itemTypes(bytes, $0) } ?? [:]
        let references = inside.first("iref").map { derivations(bytes, $0) } ?? [:]
        let sizes = inside.first("iprp").map { spatialExtents(bytes, $0) } ?? [:]

        /// Pixels for one item and what it derives from, at most four levels deep.
        func cost(_ item: UInt32, depth: Int) -> Int? {
            guard depth < 4 else { return nil }
            let own = sizes[item].map { $0.0 * $0.1 } ?? 0
            guard let type = types[item] else { return nil }
            guard ["grid", "iovl", "iden"].contains(type) else { return own }
            var total = type == "iden" ? 0 : own
            for source in references[item] ?? [] {
                guard let part = cost(source, depth: depth + 1) else { return nil }
                total += part
                if total > ceiling { return total }
            }
            return total
        }
        return cost(primary, depth: 0)
    }

    private static func pitm(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32? {
        guard range.count >= 6 else { return nil }
        return bytes[range.lowerBound] == 0
            ? UInt32(be16(bytes, range.lowerBound + 4))
            : range.count >= 8 ? be32(bytes, range.lowerBound + 4) : nil
    }

    /// Item ids and their four-character types (`infe` versions 2 and 3).
    private static func itemTypes(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt32: String] {
        guard range.count >= 6 else { return [:] }
        let version = bytes[range.lowerBound]
        let start = range.lowerBound + (version == 0 ? 6 : 8)
        guard start <= range.upperBound else { return [:] }
        var types: [UInt32: String] = [:]
        for entry in Boxes(bytes, start..<range.upperBound).all("infe") where entry.count >= 12 {
            let at = entry.lowerBound
            switch bytes[at] {
            case 2: types[UInt32(be16(bytes, at + 4))] = fourCC(bytes, at + 8)
            case 3 where entry.count >= 14: types[be32(bytes, at + 4)] = fourCC(bytes, at + 10)
            default: continue
            }
        }
        return types
    }

    /// Each item's `dimg` references, in order, repeats kept.
    private static func derivations(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt32: [UInt32]] {
        guard range.count >= 4 else { return [:] }
        let wide = bytes[range.lowerBound] == 1
        let idSize = wide ? 4 : 2
        var out: [UInt32: [UInt32]] = [:]
        var boxes = Boxes(bytes, (range.lowerBound + 4)..<range.upperBound)
        while let (type, body) = boxes.next() {
            guard type == "dimg", body.count >= idSize + 2 else { continue }
            let from = wide ? be32(bytes, body.lowerBound) : UInt32(be16(bytes, body.lowerBound))
            let count = be16(bytes, body.lowerBound + idSize)
            guard body.count >= idSize + 2 + count * idSize else { continue }
            var targets: [UInt32] = []
            targets.reserveCapacity(count)
            for index in 0..<count {
                let at = body.lowerBound + idSize + 2 + index * idSize
                targets.append(wide ? be32(bytes, at) : UInt32(be16(bytes, at)))
            }
            out[from, default: []] += targets
        }
        return out
    }

    /// Each item's `ispe` (width, height), through `ipco`'s properties and `ipma`'s associations.
    private static func spatialExtents(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt32: (Int, Int)] {
        let iprp = Boxes(bytes, range)
        guard let ipco = iprp.first("ipco"), let ipma = iprp.first("ipma"), ipma.count >= 8 else {
            return [:]
        }
        var properties: [(Int, Int)?] = []
        var list = Boxes(bytes, ipco)
        while let (type, body) = list.next() {
            properties.append(
                type == "ispe" && body.count >= 12
                    ? (Int(be32(bytes, body.lowerBound + 4)), Int(be32(bytes, body.lowerBound + 8))) : nil)
        }
        let version = bytes[ipma.lowerBound]
        let wideIndex = bytes[ipma.lowerBound + 3] & 1 == 1
        var at = ipma.lowerBound + 8
        var out: [UInt32: (Int, Int)] = [:]
        for _ in 0..<Int(be32(bytes, ipma.lowerBound + 4)) {
            let idSize = version < 1 ? 2 : 4
            guard at + idSize + 1 <= ipma.upperBound else { break }
            let item = idSize == 2 ? UInt32(be16(bytes, at)) : be32(bytes, at)
            let count = Int(bytes[at + idSize])
            at += idSize + 1
            for _ in 0..<count {
                let size = wideIndex ? 2 : 1
                guard at + size <= ipma.upperBound else { return out }
                let index = wideIndex ? be16(bytes, at) & 0x7FFF : Int(bytes[at] & 0x7F)
                at += size
                if index >= 1, index <= properties.count, let extent = properties[index - 1] {
                    out[item] = extent
                }
            }
        }
        return out
    }

    private static func be16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
            | UInt32(bytes[at + 3])
    }

    private static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
        String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }

    /// The boxes in a range: each one's type and body, a box that runs past the range ending the walk.
    struct Boxes {
        let bytes: [UInt8]
        let range: Range<Int>
        private var at: Int

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            self.range = range
            at = range.lowerBound
        }

        mutating func next() -> (String, Range<Int>)? {
            guard at + 8 <= range.upperBound else { return nil }
            var size = Int(be32(bytes, at))
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { return nil }
                let high = Int(be32(bytes, at + 8))
                guard high == 0 else { return nil }  // over 4 GB: not in a 64 MiB photo
                size = Int(be32(bytes, at + 12))
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, at + size <= range.upperBound else { return nil }
            let type = fourCC(bytes, at + 4)
            let body = (at + header)..<(at + size)
            at += size
            return (type, body)
        }

        func first(_ type: String) -> Range<Int>? {
            var copy = self
            while let (found, body) = copy.next() {
                if found == type { return body }
            }
            return nil
        }

        func all(_ type: String) -> [Range<Int>] {
            var copy = self
            var out: [Range<Int>] = []
            while let (found, body) = copy.next() {
                if found == type { out.append(body) }
            }
            return out
        }
    }
}
