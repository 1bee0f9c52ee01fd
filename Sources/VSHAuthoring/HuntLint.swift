import Foundation
public import VSHCore
import VSHGeodesy

/// What an organiser wants to hear about a valid folder (`vsh-master validate`'s warnings).
public enum HuntLint {
    /// Smaller than this (m²), a stop is hard to hit with phone GPS.
    public static let smallArea = 25.0
    /// Larger than this (m²), a stop is a district, not a landmark.
    public static let largeArea = 500_000.0
    /// Stops of one hunt farther apart than this (metres) are probably a typo.
    public static let farApart = 25_000.0

    /// The warnings about valid hunts, each in one line naming its file (`folder/<id>.geojson`).
    public static func warnings(_ hunts: [Hunt], folder: String, inspector: any GeometryOperations) throws
        -> [String]
    {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return try findings(hunts, inspector: inspector).map { "\(prefix)\($0.hunt).geojson: \($0.text)" }
    }

    /// One thing an organiser should look at: the hunt, the stop it is about (if one), and what.
    public struct Finding: Sendable, Equatable {
        /// The hunt's id.
        public var hunt: String
        /// The stop it is about, if one.
        public var stop: String?
        /// What, in words (naming the stop or stops).
        public var text: String
    }

    /// The warnings about valid hunts, structured.
    public static func findings(_ hunts: [Hunt], inspector: any GeometryOperations) throws -> [Finding] {
        var warnings: [Finding] = []
        for hunt in hunts {
            func warn(_ text: String, stop: String? = nil) {
                warnings.append(Finding(hunt: hunt.id, stop: stop, text: text))
            }
            if hunt.stops.isEmpty { warn("the hunt has no stops yet") }
            let areas = hunt.stops.map { Geodesic.areaSquareMeters(of: $0.geofence) }
            for (stop, area) in zip(hunt.stops, areas) {
                if area < smallArea {
                    warn(
                        "stop \"\(stop.id)\": only \(Int(area.rounded())) m²; phone GPS is rarely that precise",
                        stop: stop.id)
                } else if area > largeArea {
                    warn(
                        "stop \"\(stop.id)\": covers \(String(format: "%.1f", area / 1_000_000)) km², more than a landmark",
                        stop: stop.id)
                }
                let radius = (area / .pi).squareRoot()
                if hunt.toleranceMeters > radius {
                    warn(
                        "stop \"\(stop.id)\": the hunt's tolerance (\(Int(hunt.toleranceMeters)) m) is larger than the stop (about \(Int(radius.rounded())) m in radius); a fix near it counts like one inside",
                        stop: stop.id)
                }
                if hunt.maxAccuracyMeters > radius * 2 {
                    warn(
                        "stop \"\(stop.id)\": smaller (about \(Int((radius * 2).rounded())) m across) than the GPS accuracy the hunt accepts (\(Int(hunt.maxAccuracyMeters)) m); many fixes there will land outside it",
                        stop: stop.id)
                }
            }
            let centres = hunt.stops.map { $0.geofence.bounds.center }
            for (index, stop) in hunt.stops.enumerated() where hunt.stops.count > 1 {
                // Swapped latitude and longitude put a stop on another continent: when the swap
                // brings it near the others, say so.
                let others = centres.enumerated().filter { $0.offset != index }.map(\.element)
                let nearest = others.map { Geodesic.distanceMeters(centres[index], $0) }.min() ?? 0
                let c = centres[index]
                guard nearest > farApart, abs(c.longitude) <= 90 else { continue }
                guard let swapped = try? Coordinate(latitude: c.longitude, longitude: c.latitude) else {
                    continue
                }
                if others.map({ Geodesic.distanceMeters(swapped, $0) }).min() ?? .infinity < farApart {
                    warn(
                        "stop \"\(stop.id)\": its latitude and longitude look swapped (GeoJSON writes longitude first)",
                        stop: stop.id)
                }
            }
            for i in hunt.stops.indices {
                for j in hunt.stops.indices where j > i {
                    let a = hunt.stops[i]
                    let b = hunt.stops[j]
                    let distance = Geodesic.distanceMeters(a.geofence.bounds.center, b.geofence.bounds.center)
                    if distance > farApart {
                        warn(
                            "stops \"\(a.id)\" and \"\(b.id)\" are \(Int((distance / 1000).rounded())) km apart",
                            stop: b.id)
                    }
                    if distance < 5_000, try inspector.sharedAreaSquareMeters(a.geofence, b.geofence) > 1 {
                        warn(
                            "stops \"\(a.id)\" and \"\(b.id)\" overlap; a fix there counts for the one not yet visited",
                            stop: b.id)
                    }
                }
            }
        }
        return warnings
    }
}
