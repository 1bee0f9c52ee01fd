/// What a geometry engine says about a geofence: whether it is topologically
/// valid and how large it is. The core needs this to accept a hunt file; the
/// SpatiaLite adapter answers it with GEOS (`ST_IsValidReason`) and the
/// ellipsoid (`ST_Area(g, 1)`).
public protocol GeofenceInspector {
    /// The reason the geofence is invalid (self-intersection, hole outside
    /// shell, ...) or nil when it is valid, and its area in square metres on the
    /// WGS84 ellipsoid.
    func inspect(_ geofence: Geofence) throws -> GeofenceInspection
}

/// What an inspector found.
public struct GeofenceInspection: Equatable, Sendable {
    /// Why the geofence is invalid (GEOS's reason in words), or nil when it is valid.
    public var invalidReason: String?
    /// The geofence's area on the WGS84 ellipsoid, in square metres.
    public var areaSquareMeters: Double

    /// An inspection from its parts.
    public init(invalidReason: String?, areaSquareMeters: Double) {
        self.invalidReason = invalidReason
        self.areaSquareMeters = areaSquareMeters
    }
}
