/// The area a stop covers: one or more polygons, holes allowed, in WGS84.
///
/// **Inside** is boundary-inclusive: a position on an edge or a vertex is
/// covered, one in a hole is not, one on a hole's edge is (it is on the
/// boundary). This is SpatiaLite's `ST_Covers`, not `ST_Contains`.
public struct Geofence: Hashable, Sendable {
    /// The GeoJSON geometry type the fence was read from, kept so it is written back the same way.
    public enum Kind: String, Sendable {
        case polygon = "Polygon"
        case multiPolygon = "MultiPolygon"
    }

    /// Polygon or MultiPolygon, as the hunt file has it.
    public let kind: Kind
    /// The polygons; one for a Polygon.
    public let polygons: [Polygon]

    /// - Throws: `GeometryError.noPolygons` for an empty list, or a single-polygon kind with several.
    public init(kind: Kind, polygons: [Polygon]) throws(GeometryError) {
        guard !polygons.isEmpty, kind == .multiPolygon || polygons.count == 1 else { throw .noPolygons }
        self.kind = kind
        self.polygons = polygons
    }

    /// A geofence of one polygon.
    public init(_ polygon: Polygon) {
        self.kind = .polygon
        self.polygons = [polygon]
    }

    /// Every position of every ring.
    public var allPositions: [Coordinate] { polygons.flatMap { $0.rings.flatMap(\.positions) } }

    /// The bounding box (minimum and maximum latitude and longitude), in degrees.
    public var bounds: BoundingBox {
        var box = BoundingBox(around: polygons[0].shell.positions[0])
        for polygon in polygons { for position in polygon.shell.positions { box.include(position) } }
        return box
    }

    /// Well-known text, `MULTIPOLYGON(((lon lat, ...)))`, longitude first, every
    /// digit kept (Swift prints the shortest decimal that reads back exactly).
    public var wkt: String {
        var out = "MULTIPOLYGON("
        for (p, polygon) in polygons.enumerated() {
            out += p == 0 ? "(" : ",("
            for (r, ring) in polygon.rings.enumerated() {
                out += r == 0 ? "(" : ",("
                for (i, position) in ring.positions.enumerated() {
                    if i > 0 { out += "," }
                    out += "\(position.longitude) \(position.latitude)"
                }
                out += ")"
            }
            out += ")"
        }
        return out + ")"
    }
}

/// A latitude/longitude rectangle in degrees.
public struct BoundingBox: Hashable, Sendable {
    public var minLatitude, minLongitude, maxLatitude, maxLongitude: Double

    /// The box of one position.
    public init(around position: Coordinate) {
        minLatitude = position.latitude
        maxLatitude = position.latitude
        minLongitude = position.longitude
        maxLongitude = position.longitude
    }

    /// Grows the box to hold `position`.
    public mutating func include(_ position: Coordinate) {
        minLatitude = min(minLatitude, position.latitude)
        maxLatitude = max(maxLatitude, position.latitude)
        minLongitude = min(minLongitude, position.longitude)
        maxLongitude = max(maxLongitude, position.longitude)
    }

    /// The middle of the box (not a geodesic centre).
    public var center: Coordinate {
        Coordinate(unchecked: (minLatitude + maxLatitude) / 2, (minLongitude + maxLongitude) / 2)
    }
}

extension Geofence {
    /// A position inside the fence (not on its boundary, not in a hole), where a check-in that a
    /// stop's code places is put: the middle of the widest stretch inside the largest polygon
    /// along the latitude halfway up its shell (planar in degrees, which is exact enough for a
    /// point that only has to be inside).
    public var interiorPoint: Coordinate {
        let polygon = polygons.max { abs($0.shell.signedAreaDegrees) < abs($1.shell.signedAreaDegrees) }!
        var low = Double.infinity
        var high = -Double.infinity
        for position in polygon.shell.positions {
            low = min(low, position.latitude)
            high = max(high, position.latitude)
        }
        // Halfway up, nudged off any vertex's latitude so no crossing is counted twice.
        var latitude = (low + high) / 2
        let vertexLatitudes = Set(polygon.rings.flatMap { $0.positions.map(\.latitude) })
        var nudge = (high - low) / 1_000_003
        while vertexLatitudes.contains(latitude) && nudge > 0 {
            latitude += nudge
            nudge /= 2
        }
        var crossings: [Double] = []
        for ring in polygon.rings {
            for (a, b) in zip(ring.positions, ring.positions.dropFirst())
            where (a.latitude > latitude) != (b.latitude > latitude) {
                let t = (latitude - a.latitude) / (b.latitude - a.latitude)
                crossings.append(a.longitude + t * (b.longitude - a.longitude))
            }
        }
        crossings.sort()
        var best: (width: Double, middle: Double)?
        var index = 0
        while index + 1 < crossings.count {
            let width = crossings[index + 1] - crossings[index]
            if best.map({ width > $0.width }) ?? true {
                best = (width, (crossings[index] + crossings[index + 1]) / 2)
            }
            index += 2
        }
        return Coordinate(unchecked: latitude, best?.middle ?? bounds.center.longitude)
    }
}
