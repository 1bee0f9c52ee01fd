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

extension GeofenceInspection {
    /// GEOS's validity reason in words: `Self-intersection[-115.17 36.08]` becomes
    /// `self-intersection at longitude -115.17, latitude 36.08` (SpatiaLite and PostGIS both
    /// answer `ST_IsValidReason` in GEOS's form).
    public static func plainReason(_ reason: String) -> String {
        guard let open = reason.firstIndex(of: "["), reason.hasSuffix("]") else { return reason.lowercased() }
        let what = reason[..<open].lowercased()
        let numbers = reason[reason.index(after: open)..<reason.index(before: reason.endIndex)].split(
            separator: " ")
        guard numbers.count == 2 else { return reason.lowercased() }
        return "\(what) at longitude \(numbers[0]), latitude \(numbers[1])"
    }
}
