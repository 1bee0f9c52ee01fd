public import Foundation
public import VSHCore

/// The `--json` shapes of `vsh hunts` and `vsh hunt ID` (README: "JSON output").
public enum HuntJSON {
    /// A hunt's metadata with the file's field names, plus `stops` (a count, or
    /// the stops themselves) and `total_points`; with `now`, its `state` then (`upcoming`, `open`,
    /// `closed`).
    public static func hunt(_ stored: StoredHunt, withStops: Bool, at now: Date? = nil) -> JSONValue {
        let hunt = stored.hunt
        // The join code is the organisers' secret (players join with it): never in a feed.
        var object = HuntFile.metadata(of: hunt, forPlayers: true)
        object["total_points"] = .int(hunt.totalPoints)
        if let now { object["state"] = .string(hunt.state(at: now).rawValue) }
        if withStops {
            object["stops"] = .array(
                hunt.stops.map { stop in
                    let center = stop.geofence.bounds.center
                    var fields: JSONObject = [
                        "id": .string(stop.id),
                        "name": .string(stop.name),
                        "description": .string(stop.description),
                        "points": .int(stop.points),
                        "image": .optional(stop.image),
                        "area_m2": .double(((stored.stopAreas[stop.id] ?? 0) * 10).rounded() / 10),
                        "center": .array([
                            .double(Coordinate.printed(center.latitude)),
                            .double(Coordinate.printed(center.longitude)),
                        ]),
                    ]
                    if stop.featured { fields["featured"] = .bool(true) }
                    if stop.hasCode { fields["has_code"] = .bool(true) }
                    if let sponsor = stop.sponsor { fields["sponsor"] = .string(sponsor) }
                    if !stop.translations.isEmpty {
                        fields["translations"] = HuntFile.translationsJSON(stop.translations)
                    }
                    return .object(fields)
                })
        } else {
            object["stops"] = .int(hunt.stops.count)
        }
        return .object(object)
    }
}
