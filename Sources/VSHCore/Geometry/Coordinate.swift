/// A WGS84 position in decimal degrees (EPSG:4326).
///
/// Latitude first in Swift, as people say it; GeoJSON and WKT write longitude
/// first (RFC 7946 §3.1.1), and the readers and writers swap at the boundary.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    /// Degrees north of the equator, -90...90.
    public let latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public let longitude: Double

    /// A coordinate that is finite and in range.
    /// - Throws: `GeometryError.coordinateOutOfRange` otherwise.
    public init(latitude: Double, longitude: Double) throws(GeometryError) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        else { throw .coordinateOutOfRange(latitude: latitude, longitude: longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already known to be in range (constants in code and tests).
    public init(unchecked latitude: Double, _ longitude: Double) {
        precondition((-90...90).contains(latitude) && (-180...180).contains(longitude))
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `lat,lon` with full precision.
    public var description: String { "\(latitude),\(longitude)" }
}

/// Why a geometry could not be built.
public enum GeometryError: Error, Equatable, Sendable, CustomStringConvertible {
    case coordinateOutOfRange(latitude: Double, longitude: Double)
    case ringTooShort(ring: Int, positions: Int)
    case ringNotClosed(ring: Int)
    case ringCrossesAntimeridian(ring: Int)
    case noPolygons
    /// What GEOS says is wrong (self-intersection, hole outside shell, ...).
    case invalid(reason: String)
    case areaOutOfRange(squareMeters: Double, allowed: ClosedRange<Double>)

    /// `lat,lon` in decimal degrees.
    public var description: String {
        switch self {
        case .coordinateOutOfRange(let lat, let lon):
            let which = (-90...90).contains(lat) || !lat.isFinite ? "longitude \(lon)" : "latitude \(lat)"
            return "\(lat.isFinite && lon.isFinite ? which : "a non-finite coordinate") is out of range "
                + "(positions are [longitude, latitude] with longitude -180...180 and latitude -90...90)"
        case .ringTooShort(let ring, let positions):
            return "ring \(ring) has \(positions) positions; a closed ring needs at least 4"
        case .ringNotClosed(let ring):
            return "ring \(ring) is not closed (its last position must repeat the first)"
        case .ringCrossesAntimeridian(let ring):
            return "ring \(ring) crosses the antimeridian (split it into two polygons of a MultiPolygon)"
        case .noPolygons:
            return "the geometry has no polygons"
        case .invalid(let reason):
            return "invalid polygon: \(reason)"
        case .areaOutOfRange(let area, let allowed):
            let shown = area < 100 ? String(format2(area)) : String(Int(area.rounded()))
            return
                "area \(shown) m² is outside the \(Int(allowed.lowerBound))...\(Int(allowed.upperBound)) m² a stop may have"
        }
    }
}

private func format2(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}

extension Coordinate {
    /// Degrees as vsh prints them, in text and JSON: rounded to 7 decimals (about 1 cm), so that
    /// `-115.17290072222222` reads `-115.1729007` and `-115.16139000000001` reads `-115.16139`.
    public static func printed(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return degrees }
        return (degrees * 1e7).rounded() / 1e7
    }
}
