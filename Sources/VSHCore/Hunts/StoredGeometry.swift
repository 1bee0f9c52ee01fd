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
