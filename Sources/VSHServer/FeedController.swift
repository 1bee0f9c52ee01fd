import Foundation
import Hummingbird
import VSHCore

/// Running an event live: the moderators' feed of check-ins as they arrive (with a thumbnail of
/// each photo, and the decisions on each: approve, reject, revoke), the "featured" flag that puts a
/// photo on the projector, and a hunt's featured photos for the screen.
struct FeedController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    var access: HuntAccess { HuntAccess(store: store, clock: clock) }

    static let feed = Endpoint(.get, "/v1/feed")
    static let feature = Endpoint(.put, "/v1/checkins/{id}/featured")
    static let featured = Endpoint(.get, "/v1/hunts/{id}/featured")
    static let revoke = Endpoint(.post, "/v1/reviews/{id}/revoke")
    static var endpoints: [Endpoint] { [feed, feature, featured, revoke] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.feed, use: feed)
        router.on(Self.feature, use: feature)
        router.on(Self.featured, use: featured)
        router.on(Self.revoke, use: revoke)
    }

    /// A moderator's (or organiser's) session.
    private func moderator(_ request: Request, to what: String) async throws -> Session {
        let session = try await authentication.require(request)
        guard session.role.mayModerate else {
            throw Problem(.forbidden, "Forbidden", "only moderators may \(what)")
        }
        return session
    }

    /// GET /v1/feed?hunt=&before=&limit= (moderators) → the latest check-ins, newest first:
    /// `[{id, player, team, hunt, stop, stop_name, received_at, state, featured, photo_url, thumbnail_url}]`.
    @Sendable func feed(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await moderator(request, to: "read the live feed")
        let query = request.uri.queryParameters
        let hunt = query.get("hunt")
        if let hunt, try await store.hunt(id: hunt) == nil {
            throw LeagueError.unknownHunt(id: hunt, known: try await store.hunts().map(\.hunt.id))
        }
        var before: Int64?
        if let text = query.get("before") {
            guard let value = Int64(text), value > 0 else {
                throw Problem(.badRequest, "Invalid query", "before must be a check-in number")
            }
            before = value
        }
        var limit = 30
        if let text = query.get("limit") {
            guard let value = Int(text), (1...200).contains(value) else {
                throw Problem(.badRequest, "Invalid query", "limit must be a number from 1 to 200")
            }
            limit = value
        }
        let items = try await store.feed(huntID: hunt, before: before, limit: limit)
        var teams: [Int64: String] = [:]
        for id in Set(items.compactMap(\.team)) { teams[id] = try await store.team(id: id)?.name }
        return JSONBodies.response(
            .array(items.map { Self.json($0, teamName: $0.team.flatMap { teams[$0] }) }))
    }

    /// PUT /v1/checkins/{id}/featured `{featured}` (moderators) → 200 `{id, featured}`: the photo is
    /// on the hunt's projector board while it counts (accepted), or taken off it.
    @Sendable func feature(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await moderator(request, to: "feature photos")
        let id = try checkInID(context)
        let body = try await JSONBodies.object(request, context: context, required: ["featured"])
        guard case .bool(let featured)? = body["featured"] else {
            throw Problem(.unprocessableContent, "Invalid field", "\"featured\" must be true or false")
        }
        guard let item = try await store.feedItem(id) else { throw Self.unknown(id) }
        if featured && !item.hasPhoto {
            throw Problem(.conflict, "No photo", "check-in #\(id) has no photo to feature")
        }
        _ = try await store.setFeatured(id, featured, by: session.player.name, at: clock())
        return JSONBodies.response(.object(["id": .int(Int(id)), "featured": .bool(featured)]))
    }

    /// GET /v1/hunts/{id}/featured → the hunt's featured photos that count, newest featured first
    /// (at most 12): `[{id, player, stop_name, photo_url}]`; for whoever may see the hunt.
    @Sendable func featured(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let hunt = try await access.require(try context.parameters.require("id"), in: store, request).hunt
        let items = try await store.featured(huntID: hunt.id, limit: 12)
        return JSONBodies.response(
            .array(
                items.map {
                    .object([
                        "id": .int(Int($0.id)), "player": .string($0.player),
                        "stop_name": .optional($0.stopName),
                        "photo_url": .string("/v1/checkins/\($0.id)/photo"),
                    ])
                }))
    }

    /// POST /v1/reviews/{id}/revoke `{reason}` (moderators) → as an approval's answer: an accepted
    /// check-in is withdrawn with what it earned; the player sees the reason.
    @Sendable func revoke(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await moderator(request, to: "revoke check-ins")
        let id = try checkInID(context)
        if try await store.photo(ofCheckIn: id)?.playerID == session.player.id {
            throw Problem(
                .forbidden, "Forbidden", "this is your own check-in: another moderator must decide it")
        }
        let body = try await JSONBodies.object(request, context: context, required: ["reason"])
        let outcome = try await store.review(
            id, .revoked, reason: try JSONBodies.string(body, "reason") ?? "", moderator: session.player.name,
            at: clock())
        return JSONBodies.response(
            .object([
                "id": .int(Int(outcome.checkInID)), "player": .string(outcome.player),
                "state": .string(outcome.state.rawValue), "points_change": .int(outcome.pointsChange),
                "player_points": .int(outcome.playerPoints),
            ]))
    }

    static func json(_ item: FeedItem, teamName: String?) -> JSONValue {
        .object([
            "id": .int(Int(item.id)), "player": .string(item.player),
            "team": item.team.map { .object(["id": .int(Int($0)), "name": .optional(teamName)]) } ?? .null,
            "hunt": .optional(item.huntID), "stop": .optional(item.stopID),
            "stop_name": .optional(item.stopName),
            "received_at": .string(RFC3339.format(item.receivedAt)), "state": .string(item.state.rawValue),
            "featured": .bool(item.featured),
            "photo_url": .optional(item.hasPhoto ? "/v1/checkins/\(item.id)/photo" : nil),
            "thumbnail_url": .optional(item.hasPhoto ? "/v1/checkins/\(item.id)/photo?size=thumb" : nil),
        ])
    }

    private func checkInID(_ context: VSHRequestContext) throws -> Int64 {
        let raw = try context.parameters.require("id")
        guard let id = Int64(raw), id > 0 else {
            throw Problem(.notFound, "Not found", "no check-in \"\(raw.prefix(20))\"")
        }
        return id
    }

    private static func unknown(_ id: Int64) -> Problem {
        Problem(.notFound, "Not found", "no check-in #\(id)")
    }
}
