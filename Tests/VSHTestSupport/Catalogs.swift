public import VSHCore

/// A hunt ("test") of the given stops, 10 points each, for building catalogs in code.
public func catalog(stops: [(id: String, geofence: Geofence)]) -> HuntCatalog {
    HuntCatalog(hunts: [
        Hunt(
            id: "test", name: "Test",
            stops: stops.map {
                Stop(id: $0.id, huntID: "test", name: $0.id, points: 10, geofence: $0.geofence)
            })
    ])
}

/// A square geofence of half-side `h` degrees around (lat, lon).
public func square(_ lat: Double, _ lon: Double, halfDegrees h: Double) throws -> Geofence {
    Geofence(
        Polygon(
            shell: try LinearRing([
                Coordinate(unchecked: lat - h, lon - h), Coordinate(unchecked: lat - h, lon + h),
                Coordinate(unchecked: lat + h, lon + h), Coordinate(unchecked: lat + h, lon - h),
                Coordinate(unchecked: lat - h, lon - h),
            ])))
}
