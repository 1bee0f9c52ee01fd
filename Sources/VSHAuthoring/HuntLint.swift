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

    public static func warnings(_ hunts: [Hunt], folder: String, inspector: any GeometryOperations) throws
        -> [String]
    {
        var warnings: [String] = []
        for hunt in hunts {
            let file = (folder.hasSuffix("/") ? folder : folder + "/") + hunt.id + ".geojson"
            if hunt.stops.isEmpty { warnings.append("\(file): the hunt has no stops yet") }
            let areas = hunt.stops.map { Geodesic.areaSquareMeters(of: $0.geofence) }
            for (stop, area) in zip(hunt.stops, areas) {
                if area < smallArea {
                    warnings.append(
                        "\(file): stop \"\(stop.id)\": only \(Int(area.rounded())) m²; phone GPS is rarely that precise"
                    )
                } else if area > largeArea {
                    warnings.append(
                        "\(file): stop \"\(stop.id)\": covers \(String(format: "%.1f", area / 1_000_000)) km², more than a landmark"
                    )
                }
                let radius = (area / .pi).squareRoot()
                if hunt.toleranceMeters > radius {
                    warnings.append(
                        "\(file): stop \"\(stop.id)\": the hunt's tolerance (\(Int(hunt.toleranceMeters)) m) is larger than the stop (about \(Int(radius.rounded())) m in radius); a fix near it counts like one inside"
                    )
                }
            }
            for i in hunt.stops.indices {
                for j in hunt.stops.indices where j > i {
                    let a = hunt.stops[i]
                    let b = hunt.stops[j]
                    let distance = Geodesic.distanceMeters(a.geofence.bounds.center, b.geofence.bounds.center)
                    if distance > farApart {
                        warnings.append(
                            "\(file): stops \"\(a.id)\" and \"\(b.id)\" are \(Int((distance / 1000).rounded())) km apart"
                        )
                    }
                    if distance < 5_000, try inspector.sharedAreaSquareMeters(a.geofence, b.geofence) > 1 {
                        warnings.append(
                            "\(file): stops \"\(a.id)\" and \"\(b.id)\" overlap; a fix there counts for the one not yet visited"
                        )
                    }
                }
            }
        }
        return warnings
    }
}
