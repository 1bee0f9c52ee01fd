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

/// The geometry operations organisers' authoring needs (`vsh-master`): areas from a walked
/// perimeter or a few photos' positions, simplification, well-known text, overlaps and a point
/// inside a stop. The SpatiaLite adapter answers them with SpatiaLite and GEOS.
public protocol GeometryOperations: GeofenceInspector {
    /// The area a walked perimeter encloses (a closed walk, gaps bridged); loops smaller than
    /// `minFraction` of it are dropped.
    /// - Throws: `SpatialOperationError.tooFewPositions`, `.noArea`.
    func enclosedArea(_ positions: [Coordinate], minFraction: Double) throws -> Geofence

    /// The geofence simplified to within `toleranceMeters`, still valid.
    func simplified(_ geofence: Geofence, toleranceMeters: Double) throws -> Geofence

    /// The convex hull of the positions, grown by `bufferMeters`.
    /// - Throws: `SpatialOperationError.noPositions`.
    func hull(of positions: [Coordinate], bufferMeters: Double) throws -> Geofence

    /// A geofence from well-known text (`POLYGON`, `MULTIPOLYGON`, longitude first).
    /// - Throws: `SpatialOperationError.wktTooLong`, `.unreadableWKT`.
    func geofence(wkt: String) throws -> Geofence

    /// The area two geofences share, in square metres.
    func sharedAreaSquareMeters(_ a: Geofence, _ b: Geofence) throws -> Double

    /// A point surely inside the geofence (for a GPX waypoint).
    func insidePoint(_ geofence: Geofence) throws -> Coordinate
}

extension GeometryOperations {
    /// The area a walked perimeter encloses, dropping loops under 2 % of it.
    public func enclosedArea(_ positions: [Coordinate]) throws -> Geofence {
        try enclosedArea(positions, minFraction: 0.02)
    }
}
