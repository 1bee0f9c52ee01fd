import Foundation
public import VSHCore
import VSHXML

/// The `--json` shape of `vsh gpx`.
public enum GPXJSON {
    /// `{file, version, tracks, segments, points, waypoints, routes, route_points, length_m, start, end,
    /// min_ele_m, max_ele_m, first_point, last_point, skipped}`; points are `[lat, lon, ele]`.
    public static func statistics(_ s: GPXStatistics, file: String) -> JSONValue {
        func point(_ p: GPXPoint?) -> JSONValue {
            guard let p else { return .null }
            return .array([
                .double(Coordinate.printed(p.latitude)), .double(Coordinate.printed(p.longitude)),
                p.elevationMeters.map(JSONValue.double) ?? .null,
            ])
        }
        return .object([
            "file": .string(file), "version": .optional(s.version),
            "tracks": .int(s.tracks), "segments": .int(s.segments), "points": .int(s.points),
            "waypoints": .int(s.waypoints), "routes": .int(s.routes), "route_points": .int(s.routePoints),
            "length_m": .double((s.lengthMeters * 1000).rounded() / 1000),
            "start": .optional(s.start.map(RFC3339.format)), "end": .optional(s.end.map(RFC3339.format)),
            "min_ele_m": s.minElevationMeters.map(JSONValue.double) ?? .null,
            "max_ele_m": s.maxElevationMeters.map(JSONValue.double) ?? .null,
            "first_point": point(s.firstPoint), "last_point": point(s.lastPoint),
            "skipped": .int(s.skipped.count),
        ])
    }
}
