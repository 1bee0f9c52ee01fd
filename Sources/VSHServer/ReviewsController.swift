import Foundation
import Hummingbird
import VSHCore
import VSHEngine

/// Moderation over HTTP: the review queue, approvals and rejections, for moderators only.
struct ReviewsController: Sendable {
    let store: any LeagueStore
    let photos: any PhotoStore
    let authentication: Authentication
    let clock: @Sendable () -> Date

    static let list = Endpoint(.get, "/v1/reviews")
    static let approve = Endpoint(.post, "/v1/reviews/{id}/approve")
    static let reject = Endpoint(.post, "/v1/reviews/{id}/reject")
    static var endpoints: [Endpoint] { [list, approve, reject] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.list, use: list)
        router.on(Self.approve) { request, context in try await decide(.approved, request, context) }
        router.on(Self.reject) { request, context in try await decide(.rejected, request, context) }
    }

    /// The session of a moderator.
    /// - Throws: `Problem` 401 without a valid token, 403 for a player who does not moderate.
    func moderator(_ request: Request) async throws -> Session {
        let session = try await authentication.require(request)
        guard session.role.mayModerate else {
            throw Problem(.forbidden, "Forbidden", "only moderators may review check-ins")
        }
        return session
    }

    /// GET /v1/reviews → pending check-ins, oldest first: `[{id, player, player_id, received_at, hunt, stop, stop_name, reasons, lat, lon, accuracy_m, has_photo}]`.
    @Sendable func list(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await moderator(request)
        return JSONBodies.response(
            .array(
                try await store.pendingCheckIns().map { p in
                    .object([
                        "id": .int(Int(p.id)), "player": .string(p.player),
                        "player_id": .int(Int(p.playerID.rawValue)),
                        "received_at": .string(RFC3339.format(p.receivedAt)), "hunt": .optional(p.huntID),
                        "stop": .optional(p.stopID), "stop_name": .optional(p.stopName),
                        "reasons": .array(p.reasons.map(JSONValue.string)),
                        "lat": Self.number(p.position.map { Coordinate.printed($0.latitude) }),
                        "lon": Self.number(p.position.map { Coordinate.printed($0.longitude) }),
                        "accuracy_m": Self.number(p.accuracyMeters), "has_photo": .bool(p.photoFile != nil),
                        "fix_time": .optional(p.fixTime.map(RFC3339.format)),
                    ])
                }))
    }

    static func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }

    /// POST /v1/reviews/{id}/approve or /reject `{reason}` → `{id, player, state, points_change, player_points}`
    /// (what the player's total changed by, and the total). Approving a rejected check-in
    /// overturns it (a reason is required) and adds `recorded_as`, the check-in that now holds it.
    func decide(_ decision: ReviewDecision, _ request: Request, _ context: VSHRequestContext) async throws
        -> Response
    {
        let session = try await moderator(request)
        let raw = try context.parameters.require("id")
        guard let id = Int64(raw), id > 0 else {
            throw Problem(.notFound, "Not found", "no check-in \"\(raw.prefix(40))\"")
        }
        // A moderator's own check-in is decided by another moderator.
        if try await store.photo(ofCheckIn: id)?.playerID == session.player.id {
            throw Problem(
                .forbidden, "Forbidden", "this is your own check-in: another moderator must decide it")
        }
        let body = try await JSONBodies.object(
            request, context: context, required: decision == .rejected ? ["reason"] : [],
            optional: decision == .rejected ? [] : ["reason", "override"])
        let reason = try JSONBodies.string(body, "reason")
        let outcome: ReviewOutcome
        if decision == .approved {
            // The rules run again against the check-ins known now; a failing one refuses the
            // approval (409) unless the moderator overrides.
            var override = false
            switch body["override"] {
            case nil, .null?: break
            case .bool(let value)?: override = value
            default: throw Problem(.unprocessableContent, "Invalid field", "override must be true or false")
            }
            outcome = try await ReviewService(store: store, photos: photos).approve(
                id, reason: reason, moderator: session.player.name, at: clock(), override: override)
        } else {
            outcome = try await store.review(
                id, decision, reason: reason ?? "", moderator: session.player.name, at: clock())
        }
        var answer: JSONObject = [
            "id": .int(Int(outcome.checkInID)), "player": .string(outcome.player),
            "state": .string(outcome.state.rawValue),
            "points_change": .int(outcome.pointsChange), "player_points": .int(outcome.playerPoints),
        ]
        // An overturned rejection: the new check-in that holds it, whose state `state` is.
        if let copy = outcome.recordedAs { answer["recorded_as"] = .int(Int(copy)) }
        return JSONBodies.response(.object(answer))
    }
}
