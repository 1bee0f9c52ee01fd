#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HuntFile {
    /// Reads a geometry as the store keeps it (a GeoJSON Polygon or MultiPolygon, validated at
    /// sync) without building a JSON tree: bulk lookups compile every stop at start-up, and for
    /// 50,000 stops the tree cost 0.7 s, mostly reference counting. Numbers go through
    /// `strtod`, as in the JSON parser, so the coordinates are the same bits.
    /// - Returns: nil for anything but the plain shapes (the caller then takes the general path).
    public static func storedGeofence(_ text: String) -> Geofence? {
        text.withCString { start -> Geofence? in
            var reader = StoredGeometryReader(cursor: start)
            return reader.geofence()
        }
    }
}

struct StoredGeometryReader {
    var cursor: UnsafePointer<CChar>

    mutating func skipSpaces() {
        while cursor.pointee == 0x20 || cursor.pointee == 0x0A || cursor.pointee == 0x0D
            || cursor.pointee == 0x09
        { cursor += 1 }
    }

    mutating func take(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard UInt8(bitPattern: cursor.pointee) == byte else { return false }
        cursor += 1
        return true
    }

    mutating func takeLiteral(_ literal: StaticString) -> Bool {
        skipSpaces()
        let count = literal.utf8CodeUnitCount
        guard memcmp(cursor, literal.utf8Start, count) == 0 else { return false }
        cursor += count
        return true
    }

    mutating func geofence() -> Geofence? {
        guard take(UInt8(ascii: "{")), takeLiteral("\"type\""), take(UInt8(ascii: ":")) else { return nil }
        let multi: Bool
        if takeLiteral("\"Polygon\"") {
            multi = false
        } else if takeLiteral("\"MultiPolygon\"") {
            multi = true
        } else {
            return nil
        }
        guard take(UInt8(ascii: ",")), takeLiteral("\"coordinates\""), take(UInt8(ascii: ":")) else {
            return nil
        }
        var polygons: [Polygon] = []
        if multi {
            guard take(UInt8(ascii: "[")) else { return nil }
            repeat {
                guard let polygon = polygon() else { return nil }
                polygons.append(polygon)
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
        } else {
            guard let polygon = polygon() else { return nil }
            polygons.append(polygon)
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipSpaces()
        guard cursor.pointee == 0 else { return nil }
        return multi ? try? Geofence(kind: .multiPolygon, polygons: polygons) : Geofence(polygons[0])
    }

    mutating func polygon() -> Polygon? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var rings: [LinearRing] = []
        repeat {
            guard let ring = ring(index: rings.count) else { return nil }
            rings.append(ring)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")), !rings.isEmpty else { return nil }
        return Polygon(shell: rings[0], holes: Array(rings.dropFirst()))
    }

    mutating func ring(index: Int) -> LinearRing? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var positions: [Coordinate] = []
        repeat {
            guard take(UInt8(ascii: "[")), let lon = number(), take(UInt8(ascii: ",")), let lat = number()
            else { return nil }
            while take(UInt8(ascii: ",")) { guard number() != nil else { return nil } }  // an altitude
            guard take(UInt8(ascii: "]")), let coordinate = try? Coordinate(latitude: lat, longitude: lon)
            else { return nil }
            positions.append(coordinate)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
        return try? LinearRing(positions, index: index)
    }

    mutating func number() -> Double? {
        skipSpaces()
        var count = 0
        while DecimalNumber.isNumberByte(UInt8(bitPattern: cursor[count])) { count += 1 }
        let value = cursor.withMemoryRebound(to: UInt8.self, capacity: count) {
            DecimalNumber.parse(UnsafeBufferPointer(start: $0, count: count))
        }
        cursor += count
        return value
    }
}

extension HuntFile {
    /// A geofence in the compact binary form a store keeps beside its GeoJSON text (SpatiaLite's
    /// `stops.geometry_bin`): reading 50,000 stops back from text spent most of its time turning
    /// decimal numbers into doubles. Little-endian: the kind (0 Polygon, 1 MultiPolygon), the
    /// polygon count (UInt32), then each polygon's ring count and each ring's position count
    /// (UInt32) followed by its positions as (longitude, latitude) Float64 pairs, GeoJSON's order.
    public static func storedBytes(_ geofence: Geofence) -> [UInt8] {
        var bytes: [UInt8] = [geofence.kind == .polygon ? 0 : 1]
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func append(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        append(UInt32(geofence.polygons.count))
        for polygon in geofence.polygons {
            append(UInt32(polygon.rings.count))
            for ring in polygon.rings {
                append(UInt32(ring.positions.count))
                for position in ring.positions {
                    append(position.longitude)
                    append(position.latitude)
                }
            }
        }
        return bytes
    }

    /// The geofence `storedBytes` wrote, or nil when `bytes` are not one (cut short, a count past
    /// the end, trailing bytes, a coordinate out of range, a ring that is not a ring).
    public static func storedGeofence(bytes: UnsafeRawBufferPointer) -> Geofence? {
        var polygons: [Polygon] = []
        var rings: [LinearRing] = []
        var failed = false
        let kind = walkStored(bytes) { event in
            switch event {
            case .ring(let pairs, let count):
                // Checked by the walk already; built through the checking initialisers all the same.
                let positions = (0..<count).compactMap { i in
                    try? Coordinate(
                        latitude: pairs.double(at: i * 16 + 8), longitude: pairs.double(at: i * 16))
                }
                guard let ring = try? LinearRing(positions, index: rings.count) else { return failed = true }
                rings.append(ring)
            case .polygonEnd:
                if !rings.isEmpty {
                    polygons.append(Polygon(shell: rings[0], holes: Array(rings.dropFirst())))
                }
                rings = []
            }
        }
        guard !failed else { return nil }
        switch kind {
        case .polygon?: return Geofence(polygons[0])
        case .multiPolygon?: return try? Geofence(kind: .multiPolygon, polygons: polygons)
        case nil: return nil
        }
    }

    /// What `walkStored` reports, in order: each ring's (longitude, latitude) pairs, checked,
    /// then the end of its polygon.
    public enum StoredPart {
        /// A ring of `count` positions, as 16-byte (longitude, latitude) Float64 pairs.
        case ring(UnsafeRawBufferPointer, count: Int)
        /// The polygon whose rings came before ends.
        case polygonEnd
    }

    /// Walks binary geometry (`storedBytes`) once, checking all of it first, then reporting each
    /// ring and polygon to `part`: nil (nothing reported) when the bytes are not a geofence, with
    /// the checks of `Coordinate` and `LinearRing` (in range, at least four positions, closed, no
    /// edge over 180° of longitude). One reader for the geofence and for the bulk index.
    public static func walkStored(_ bytes: UnsafeRawBufferPointer, _ part: (StoredPart) -> Void) -> Geofence
        .Kind?
    {
        var offset = 0
        func uint32() -> Int? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        guard bytes.count >= 1, bytes[0] <= 1 else { return nil }
        offset = 1
        guard let polygonCount = uint32(), polygonCount > 0, polygonCount <= bytes.count,
            bytes[0] == 1 || polygonCount == 1
        else { return nil }
        var parts: [(start: Int, count: Int)] = []  // rings; count -1 ends a polygon
        for _ in 0..<polygonCount {
            guard let ringCount = uint32(), ringCount > 0, ringCount <= bytes.count else { return nil }
            for _ in 0..<ringCount {
                guard let count = uint32(), count >= 4, count <= (bytes.count - offset) / 16 else {
                    return nil
                }
                let ring = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count * 16])
                var previous = ring.double(at: 0)
                for i in 0..<count {
                    let (x, y) = (ring.double(at: i * 16), ring.double(at: i * 16 + 8))
                    guard x.isFinite, y.isFinite, (-180...180).contains(x), (-90...90).contains(y),
                        abs(x - previous) <= 180
                    else { return nil }
                    previous = x
                }
                guard ring.double(at: 0) == ring.double(at: (count - 1) * 16),
                    ring.double(at: 8) == ring.double(at: (count - 1) * 16 + 8)
                else { return nil }
                parts.append((offset, count))
                offset += count * 16
            }
            parts.append((0, -1))
        }
        guard offset == bytes.count else { return nil }
        for (start, count) in parts {
            part(
                count < 0
                    ? .polygonEnd
                    : .ring(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count * 16]), count: count)
            )
        }
        return bytes[0] == 0 ? .polygon : .multiPolygon
    }
}

extension UnsafeRawBufferPointer {
    /// The little-endian Float64 at `offset`.
    @inline(__always) func double(at offset: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }
}
