import Foundation
public import VSHCore
import VSHGeodesy
import VSHPhoto
import VSHXML

/// Where a new stop's geofence comes from (`vsh-master stop add`, exactly one source).
public enum StopGeometry {
    /// A walk that ends farther than this from where it began is not a perimeter (metres),
    /// unless the walk is long: then 5 % of its length is allowed.
    public static let closureMeters = 30.0

    /// The perimeter walked with a GPS logger: the track's points joined into a
    /// closed ring, self-crossings and jitter loops cleaned (GEOS polygonize),
    /// simplified (Douglas-Peucker, `simplifyMeters`), rounded to 7 decimals.
    /// - Throws: `AuthoringError` when the walk does not come back near its start.
    public static func fromGPX(_ path: String, simplifyMeters: Double, inspector: any GeometryOperations)
        throws
        -> Geofence
    {
        var points: [Coordinate] = []
        var routePoints: [Coordinate] = []
        try GPXReader.read(path: path) { event in
            guard case .point(let p) = event else { return }
            if p.kind == .track {
                points.append(p.coordinate)
            } else if p.kind == .route {
                routePoints.append(p.coordinate)
            }
        } restart: {
            points.removeAll()
            routePoints.removeAll()
        }
        if points.isEmpty { points = routePoints }
        guard points.count >= 3 else {
            throw AuthoringError.tooFewTrackPoints(file: path, found: points.count)
        }
        let length = zip(points, points.dropFirst()).reduce(0) { $0 + Geodesic.distanceMeters($1.0, $1.1) }
        let gap = Geodesic.distanceMeters(points[0], points[points.count - 1])
        let allowed = max(closureMeters, 0.05 * length)
        guard gap <= allowed else {
            throw AuthoringError.openPerimeter(
                file: path, gapMeters: Int(gap.rounded()), allowedMeters: Int(allowed.rounded()))
        }
        do {
            let area = try inspector.enclosedArea(points)
            return HuntFile.rounded(try inspector.simplified(area, toleranceMeters: simplifyMeters))
        } catch let error as SpatialOperationError {
            throw AuthoringError.geometry(file: path, error)
        }
    }

    /// Photos taken at a place's corners: their EXIF GPS positions, convex hull,
    /// grown by `bufferMeters`.
    /// - Throws: `AuthoringError` naming a photo without a GPS position, or fewer than 3 distinct positions.
    public static func fromPhotos(_ paths: [String], bufferMeters: Double, inspector: any GeometryOperations)
        throws -> Geofence
    {
        var positions: [Coordinate] = []
        for path in paths {
            let metadata = try PhotoReader.metadata(path: path)
            guard let position = metadata.position, position.latitude != 0 || position.longitude != 0 else {
                throw AuthoringError.photoWithoutPosition(file: path, note: metadata.positionNote ?? "none")
            }
            positions.append(position)
        }
        let distinct = positions.reduce(into: [Coordinate]()) { kept, p in
            if !kept.contains(where: { Geodesic.distanceMeters($0, p) < 1 }) { kept.append(p) }
        }
        guard distinct.count >= 3 else {
            throw AuthoringError.tooFewCorners(found: distinct.count)
        }
        return HuntFile.rounded(try inspector.hull(of: distinct, bufferMeters: bufferMeters))
    }

    /// A polygon of `vertices` points on the geodesic circle of `radiusMeters`
    /// around `center` (`geod_direct`), counterclockwise as RFC 7946 asks of shells.
    public static func circle(center: Coordinate, radiusMeters: Double, vertices: Int = 32) throws -> Geofence
    {
        guard radiusMeters >= 1, radiusMeters <= 50_000 else {
            throw AuthoringError.radiusOutOfRange
        }
        var ring = (0..<vertices).map { i in
            Geodesic.destination(
                from: center, azimuth: -360.0 * Double(i) / Double(vertices), distanceMeters: radiusMeters)
        }
        ring.append(ring[0])
        return HuntFile.rounded(Geofence(Polygon(shell: try LinearRing(ring))))
    }

    /// A GeoJSON Polygon or MultiPolygon, or a Feature or one-feature FeatureCollection holding one.
    public static func fromGeoJSON(_ path: String) throws -> Geofence {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthoringError.unreadableFile(file: path)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse([UInt8](data))
        } catch {
            throw AuthoringError.malformedJSON(file: path, error: "\(error)")
        }
        var geometry = value
        if case .object(let object) = value {
            if object["type"] == .string("FeatureCollection") {
                guard case .array(let features)? = object["features"], features.count == 1,
                    case .object(let feature) = features[0]
                else {
                    throw AuthoringError.notOneFeature(file: path)
                }
                geometry = feature["geometry"] ?? .null
            } else if object["type"] == .string("Feature") {
                geometry = object["geometry"] ?? .null
            }
        }
        do {
            return HuntFile.rounded(try HuntFile.geofence(from: geometry))
        } catch {
            throw AuthoringError.badGeometry(file: path, problem: "\(error)")
        }
    }

    /// Well-known text, read by SpatiaLite (`GeomFromText`), longitude first.
    public static func fromWKT(_ text: String, inspector: any GeometryOperations) throws -> Geofence {
        HuntFile.rounded(try inspector.geofence(wkt: text))
    }
}
