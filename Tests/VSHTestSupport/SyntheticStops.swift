import Foundation
public import VSHCore

/// Star-shaped polygons (simple by construction) 30-300 m across with 8-40
/// vertices around Las Vegas, one in ten with a hole, as `make bench` draws them.
public func syntheticStops(count: Int, seed: UInt64) -> [Stop] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { i in
        let lat = 36.05 + random.unit() * 0.15
        let lon = -115.25 + random.unit() * 0.15
        let radius = (15 + random.unit() * 135) / 111_000
        let n = 8 + Int(random.unit() * 33)
        func star(_ scale: Double, _ vertices: Int, clockwise: Bool) -> LinearRing {
            var angles = (0..<vertices).map { k in
                (Double(k) + random.unit() * 0.8) / Double(vertices) * 2 * .pi
            }
            if clockwise { angles.reverse() }
            var ring = angles.map { a -> Coordinate in
                let r = radius * scale * (0.55 + random.unit() * 0.45)
                return Coordinate(unchecked: lat + r * sin(a), lon + r * cos(a) / cos(lat * .pi / 180))
            }
            ring.append(ring[0])
            return try! LinearRing(ring)
        }
        let shell = star(1, n, clockwise: false)
        let holes = i % 10 == 0 ? [star(0.3, 6, clockwise: true)] : []
        return Stop(
            id: "s\(i)", huntID: "world", name: "s\(i)", points: 1,
            geofence: Geofence(Polygon(shell: shell, holes: holes)))
    }
}

/// The stops in two hunts, as a league of more than one holds them: the first two thirds in
/// "b-world" (listed first, so that catalog order is not the ids'), the rest moved to "a-world",
/// named by `name` when given.
public func twoHuntCatalog(_ stops: [Stop], name: ((Stop) -> String)? = nil) -> HuntCatalog {
    HuntCatalog(hunts: [
        Hunt(id: "b-world", name: "B", stops: Array(stops.prefix(stops.count * 2 / 3))),
        Hunt(
            id: "a-world", name: "A",
            stops: stops.dropFirst(stops.count * 2 / 3).map {
                var s = $0
                s.huntID = "a-world"
                if let name { s.name = name($0) }
                return s
            }),
    ])
}

/// `count` random fixes as `lat,lon` lines over the synthetic stops' area.
public func randomFixLines(_ count: Int, _ random: inout SplitMix64) -> [String] {
    (0..<count).map { _ in "\(36.05 + random.unit() * 0.15),\(-115.25 + random.unit() * 0.15)" }
}
