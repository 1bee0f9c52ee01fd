public import VSHCore

/// The JSON shape of a point lookup (`vsh locate --json`).
public enum LocateJSON {
    /// `{inside: [{hunt, stop, name}], nearest: {hunt, stop, name, distance_m} or null}`;
    /// the distance in metres to one decimal.
    public static func answer(inside: [StopReference], nearest: NearestStop?) -> JSONValue {
        let nearestJSON: JSONValue =
            nearest.map { found in
                .object([
                    "hunt": .string(found.stop.huntID), "stop": .string(found.stop.stopID),
                    "name": .string(found.stop.name),
                    "distance_m": .double((found.distanceMeters * 10).rounded() / 10),
                ])
            } ?? .null
        let insideJSON = JSONValue.array(
            inside.map {
                .object(["hunt": .string($0.huntID), "stop": .string($0.stopID), "name": .string($0.name)])
            })
        return .object(["inside": insideJSON, "nearest": nearestJSON])
    }
}
