/// A closed ring of positions: the boundary of a polygon or of one of its holes.
///
/// Valid by construction (RFC 7946 §3.1.6): at least four positions, the last
/// equal to the first, every coordinate in range, no edge longer than 180° of
/// longitude (vsh does not model rings across the antimeridian). Whether the ring
/// crosses itself is a topological question left to GEOS (`ST_IsValidReason`).
public struct LinearRing: Hashable, Sendable {
    /// The positions, first and last equal.
    public let positions: [Coordinate]

    /// - Parameter index: the ring's place in its polygon, for error messages (0 = shell).
    public init(_ positions: [Coordinate], index: Int = 0) throws(GeometryError) {
        guard positions.count >= 4 else { throw .ringTooShort(ring: index, positions: positions.count) }
        guard positions.first == positions.last else { throw .ringNotClosed(ring: index) }
        for (a, b) in zip(positions, positions.dropFirst()) where abs(a.longitude - b.longitude) > 180 {
            throw .ringCrossesAntimeridian(ring: index)
        }
        self.positions = positions
    }

    /// Signed area in square degrees by the shoelace formula: positive when the
    /// ring runs counterclockwise (longitude as x, latitude as y). Used for
    /// orientation only; areas in metres come from the ellipsoid.
    public var signedAreaDegrees: Double {
        var sum = 0.0
        for (a, b) in zip(positions, positions.dropFirst()) {
            sum += a.longitude * b.latitude - b.longitude * a.latitude
        }
        return sum / 2
    }
}

/// A polygon: one outer ring (the shell) and any number of holes.
public struct Polygon: Hashable, Sendable {
    /// The outer ring.
    public let shell: LinearRing
    /// The rings of the holes (none for most stops).
    public let holes: [LinearRing]

    /// A polygon from its shell and holes (validity is checked by `GeofenceInspector`).
    public init(shell: LinearRing, holes: [LinearRing] = []) {
        self.shell = shell
        self.holes = holes
    }

    /// All rings, shell first, as GeoJSON and WKT order them.
    public var rings: [LinearRing] { [shell] + holes }
}
