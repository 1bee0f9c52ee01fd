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
        var offset = 0
        func uint32() -> Int? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        func double() -> Double {
            defer { offset += 8 }
            return Double(
                bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            )
        }
        guard bytes.count >= 1, bytes[0] <= 1 else { return nil }
        offset = 1
        guard let polygonCount = uint32(), polygonCount > 0, polygonCount <= bytes.count else { return nil }
        var polygons: [Polygon] = []
        for _ in 0..<polygonCount {
            guard let ringCount = uint32(), ringCount > 0, ringCount <= bytes.count else { return nil }
            var rings: [LinearRing] = []
            for index in 0..<ringCount {
                guard let count = uint32(), count <= (bytes.count - offset) / 16 else { return nil }
                var positions: [Coordinate] = []
                positions.reserveCapacity(count)
                for _ in 0..<count {
                    let longitude = double()
                    guard let position = try? Coordinate(latitude: double(), longitude: longitude) else {
                        return nil
                    }
                    positions.append(position)
                }
                guard let ring = try? LinearRing(positions, index: index) else { return nil }
                rings.append(ring)
            }
            polygons.append(Polygon(shell: rings[0], holes: Array(rings.dropFirst())))
        }
        guard offset == bytes.count else { return nil }
        return bytes[0] == 0
            ? (polygons.count == 1 ? Geofence(polygons[0]) : nil)
            : try? Geofence(kind: .multiPolygon, polygons: polygons)
    }
}
