public import VSHCore

/// The JSON shape of a player's profile (`vsh profile --json`, `GET /v1/players/{name}`).
public enum ProfileJSON {
    /// `{name, player_id, created_at, points, stops_visited, hunts_completed, hunts: [...], badges: [...], recent: [...]}`.
    /// In `recent`, `stop` is the stop's id and `stop_name` its name, as in every other shape.
    /// `adjustments` (`[{points, reason, hunt, by, at}]`) only when the player has any.
    public static func profile(_ p: PlayerProfile) -> JSONValue {
        var profile: JSONObject = [
            "name": .string(p.name), "player_id": .int(Int(p.id.rawValue)),
            "created_at": .string(RFC3339.format(p.createdAt)), "points": .int(p.points),
            "stops_visited": .int(p.stopsVisited), "hunts_completed": .int(p.huntsCompleted),
            "hunts": .array(
                p.hunts.map { h in
                    .object([
                        "hunt": .string(h.huntID), "name": .string(h.name), "visited": .int(h.visited),
                        "total": .int(h.total),
                        "completed_at": .optional(h.completedAt.map(RFC3339.format)),
                    ])
                }),
            "badges": .array(
                p.badges.map { b in
                    .object([
                        "badge": .string(b.id), "name": .string(b.name), "points": .int(b.points),
                        "earned_at": .string(RFC3339.format(b.earnedAt)), "checkin": .int(Int(b.checkInID)),
                    ])
                }),
            "recent": .array(
                p.recent.map { c in
                    .object([
                        "id": .int(Int(c.id)), "received_at": .string(RFC3339.format(c.receivedAt)),
                        "hunt": .optional(c.huntID),
                        "stop": .optional(c.stopID), "stop_name": .optional(c.stopName),
                        "state": .string(c.state.rawValue),
                        "points": .int(c.points),
                    ])
                }),
        ]
        if !p.adjustments.isEmpty {
            profile["adjustments"] = .array(
                p.adjustments.map { a in
                    .object([
                        "points": .int(a.points), "reason": .string(a.reason), "hunt": .optional(a.huntID),
                        "by": .string(a.by), "at": .string(RFC3339.format(a.at)),
                    ])
                })
        }
        return .object(profile)
    }
}
