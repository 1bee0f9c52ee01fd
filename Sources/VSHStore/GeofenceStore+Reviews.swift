public import Foundation
internal import GRDB
public import VSHCore

/// A check-in waiting for a moderator.
public struct PendingCheckIn: Sendable {
    public var id: Int64
    public var player: String
    public var receivedAt: Date
    public var huntID: String?
    public var stopID: String?
    public var stopName: String?
    /// The rules that asked for review, with their details.
    public var reasons: [String]
    public var photoFile: String?
}

/// What a moderator's decision did.
public struct ReviewOutcome: Sendable {
    public var checkInID: Int64
    public var player: String
    public var state: String
    /// Points the decision credited (approving a first visit) or 0.
    public var pointsCredited: Int
}

extension GeofenceStore {
    /// Check-ins whose state is still pending, oldest first.
    public func pendingCheckIns() throws -> [PendingCheckIn] {
        try run {
            try queue.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.id, p.name, c.received_at, c.hunt_id, c.stop_id, s.name AS stop_name, c.rules, c.photo_file
                        FROM checkin_state c JOIN players p ON p.id = c.player_id LEFT JOIN stops s ON s.id = c.stop_id
                        WHERE c.state = 'pending' ORDER BY c.id
                        """
                ).map { row in
                    var reasons: [String] = []
                    if case .array(let rules)? = try? JSONValue.parse(row["rules"] as String) {
                        for case .object(let rule) in rules where rule["result"] == .string("needs_review") {
                            if case .string(let name)? = rule["rule"], case .string(let detail)? = rule["detail"] {
                                reasons.append("\(name): \(detail)")
                            }
                        }
                    }
                    return PendingCheckIn(
                        id: row["id"], player: row["name"], receivedAt: RFC3339.parse(row["received_at"]) ?? Date(timeIntervalSince1970: 0),
                        huntID: row["hunt_id"], stopID: row["stop_id"], stopName: row["stop_name"], reasons: reasons,
                        photoFile: row["photo_file"])
                }
            }
        }
    }

    public enum ReviewDecision: String, Sendable {
        /// A pending check-in is accepted.
        case approved
        /// A pending check-in is rejected.
        case rejected
        /// An accepted check-in is withdrawn (points, completions and badges it earned go with it).
        case revoked
    }

    /// Records a moderator's decision (append-only: the check-in row never
    /// changes; a review row decides its state) and rescores the player.
    /// Approve and reject take a pending check-in; revoke takes an accepted one.
    /// - Throws: `InputError` when there is no such check-in or it is not in the right state.
    public func review(_ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date) throws -> ReviewOutcome {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw InputError("give a reason (--reason TEXT)", status: .usage) }
        guard reason.count <= 500 else { throw InputError("the reason is over 500 characters") }
        return try run {
            try queue.inTransaction(.immediate) { db in
                guard let row = try Row.fetchOne(
                    db,
                    sql: "SELECT c.state, c.player_id, c.stop_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id WHERE c.id = ?",
                    arguments: [id])
                else { throw InputError("no check-in #\(id)") }
                let state: String = row["state"]
                let required = decision == .revoked ? "accepted" : "pending"
                guard state == required else { throw InputError("check-in #\(id) is \(state), not \(required)") }
                try db.execute(
                    sql: "INSERT INTO reviews(checkin_id, decision, reason, moderator, decided_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [id, decision.rawValue, reason, moderator, RFC3339.format(now)])
                try Self.rescore(db, playerID: row["player_id"])
                return .commit
            }
            return try queue.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT c.state, c.player_id, c.stop_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id WHERE c.id = ?",
                    arguments: [id])!
                // What this check-in now earns (stop, bonus, badges): credited by an approval.
                let credited = decision == .approved
                    ? try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(points), 0) FROM score_events WHERE checkin_id = ?", arguments: [id]) ?? 0
                    : 0
                return ReviewOutcome(checkInID: id, player: row["name"], state: row["state"], pointsCredited: credited)
            }
        }
    }
}
