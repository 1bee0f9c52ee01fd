import VSHCore

/// Planar geometry in degrees for the memory store: what SpatiaLite's `ST_Covers` and
/// `ST_Intersects` answer for the real stores, on the same (longitude, latitude) plane.
enum Crossing {
    /// Whether `position` is inside the geofence or on its boundary (a hole's edge is boundary).
    static func covers(_ fence: Geofence, _ position: Coordinate) -> Bool {
        let (x, y) = (position.longitude, position.latitude)
        for polygon in fence.polygons {
            var inside = false
            for (index, ring) in polygon.rings.enumerated() {
                let points = ring.positions
                var crossings = false
                for (a, b) in zip(points, points.dropFirst()) {
                    if onSegment(x, y, a, b) { return true }
                    let (ax, ay, bx, by) = (a.longitude, a.latitude, b.longitude, b.latitude)
                    if (ay > y) != (by > y), x < (bx - ax) * (y - ay) / (by - ay) + ax { crossings.toggle() }
                }
                if index == 0 {
                    inside = crossings
                } else if crossings {
                    inside = false
                }
                if !inside { break }
            }
            if inside { return true }
        }
        return false
    }

    /// Where along the segment a→b (0 to 1) the middle of its first pass through the
    /// geofence is, or nil when the segment does not meet it.
    static func fraction(_ a: Coordinate, _ b: Coordinate, _ fence: Geofence) -> Double? {
        var cuts: [Double] = [0, 1]
        for polygon in fence.polygons {
            for ring in polygon.rings {
                for (p, q) in zip(ring.positions, ring.positions.dropFirst()) {
                    if let t = intersection(a, b, p, q) { cuts.append(t) }
                }
            }
        }
        cuts.sort()
        var first: Double?
        var last: Double?
        for (t0, t1) in zip(cuts, cuts.dropFirst()) {
            let middle = (t0 + t1) / 2
            let point = Coordinate(
                unchecked: a.latitude + (b.latitude - a.latitude) * middle,
                a.longitude + (b.longitude - a.longitude) * middle)
            if covers(fence, point) || (t0 == t1 && covers(fence, point)) {
                if first == nil { first = t0 }
                last = t1
            } else if first != nil {
                break
            }
        }
        if let first, let last { return (first + last) / 2 }
        // A segment that only touches the boundary at a point.
        return cuts.dropFirst().dropLast().first
    }

    /// The parameter t on a→b where it meets p→q, or nil.
    static func intersection(_ a: Coordinate, _ b: Coordinate, _ p: Coordinate, _ q: Coordinate) -> Double? {
        let (rx, ry) = (b.longitude - a.longitude, b.latitude - a.latitude)
        let (sx, sy) = (q.longitude - p.longitude, q.latitude - p.latitude)
        let denominator = rx * sy - ry * sx
        guard denominator != 0 else { return nil }
        let (dx, dy) = (p.longitude - a.longitude, p.latitude - a.latitude)
        let t = (dx * sy - dy * sx) / denominator
        let u = (dx * ry - dy * rx) / denominator
        return (0...1).contains(t) && (0...1).contains(u) ? t : nil
    }

    /// Whether (x, y) lies on the segment a→b (exactly: a zero cross product within the box).
    static func onSegment(_ x: Double, _ y: Double, _ a: Coordinate, _ b: Coordinate) -> Bool {
        let (ax, ay, bx, by) = (a.longitude, a.latitude, b.longitude, b.latitude)
        guard x >= min(ax, bx), x <= max(ax, bx), y >= min(ay, by), y <= max(ay, by) else { return false }
        return (bx - ax) * (y - ay) - (by - ay) * (x - ax) == 0
    }
}
