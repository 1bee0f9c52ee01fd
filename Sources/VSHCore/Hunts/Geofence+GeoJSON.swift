extension Geofence {
    /// The RFC 7946 geometry object, positions as `[longitude, latitude]`.
    /// - Parameter decimals: rounds every coordinate to this many decimals (7 ≈ 1 cm,
    ///   what hunt files keep), or keeps every digit when nil.
    public func geoJSON(decimals: Int? = nil) -> JSONValue {
        func number(_ value: Double) -> JSONValue {
            guard let decimals else { return .double(value) }
            let scale = pow10(decimals)
            return .double((value * scale).rounded() / scale)
        }
        func ring(_ ring: LinearRing) -> JSONValue {
            .array(ring.positions.map { .array([number($0.longitude), number($0.latitude)]) })
        }
        func polygon(_ polygon: Polygon) -> JSONValue { .array(polygon.rings.map(ring)) }
        let coordinates: JSONValue =
            kind == .polygon ? polygon(polygons[0]) : .array(polygons.map(polygon))
        return .object(["type": .string(kind.rawValue), "coordinates": coordinates])
    }
}

private func pow10(_ n: Int) -> Double {
    var value = 1.0
    for _ in 0..<n { value *= 10 }
    return value
}
