public import Foundation
import VSHCore
import VSHGeodesy
public import VSHXML

/// `vsh gpx`: what a GPX file holds, computed while it streams past.
public struct GPXStatistics: Sendable {
    /// The file's GPX version (`1.0` or `1.1`).
    public var version: String?
    /// Tracks (`<trk>`).
    public var tracks = 0
    /// Track segments (`<trkseg>`).
    public var segments = 0
    /// Track points.
    public var points = 0
    /// Waypoints (`<wpt>`).
    public var waypoints = 0
    /// Routes (`<rte>`).
    public var routes = 0
    /// Route points (`<rtept>`).
    public var routePoints = 0
    /// Sum over track segments of the geodesic distances between consecutive points (WGS84), metres
    /// (`Geodesic.shortDistanceMeters`: Karney's for points 0.1° apart or more).
    public var lengthMeters = 0.0
    /// The first and last track-point times in document order (gpxpy's `get_time_bounds`).
    public var start: Date?
    /// The last track-point time in document order.
    public var end: Date?
    /// Track-point elevation extremes; points without `<ele>` are left out.
    public var minElevationMeters: Double?
    /// The highest track-point elevation.
    public var maxElevationMeters: Double?
    /// The first valid track point.
    public var firstPoint: GPXPoint?
    /// The last valid track point.
    public var lastPoint: GPXPoint?
    /// Points skipped as invalid, with their lines.
    public var skipped: [(line: Int, reason: String)] = []

    private var previous: Coordinate?

    /// Nothing counted yet.
    public init() {}

    /// Counts one event of the streamed file.
    public mutating func add(_ event: GPXEvent) {
        switch event {
        case .trackStart:
            tracks += 1
            previous = nil
        case .segmentStart:
            segments += 1
            previous = nil
        case .routeStart:
            routes += 1
        case .skipped(let line, let reason):
            skipped.append((line, reason))
        case .point(let point):
            switch point.kind {
            case .waypoint: waypoints += 1
            case .route: routePoints += 1
            case .track:
                points += 1
                let here = point.coordinate
                if let previous { lengthMeters += Geodesic.shortDistanceMeters(previous, here) }
                previous = here
                if firstPoint == nil { firstPoint = point }
                lastPoint = point
                if let time = point.time {
                    if start == nil { start = time }
                    end = time
                }
                if let elevation = point.elevationMeters {
                    minElevationMeters = min(minElevationMeters ?? elevation, elevation)
                    maxElevationMeters = max(maxElevationMeters ?? elevation, elevation)
                }
            }
        }
    }

    /// Reads a whole file.
    public static func of(path: String) throws -> GPXStatistics {
        var statistics = GPXStatistics()
        statistics.version = try GPXReader.read(path: path) {
            statistics.add($0)
        } restart: {
            statistics = GPXStatistics()
        }
        return statistics
    }
}
