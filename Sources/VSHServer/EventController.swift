import Foundation
import HTTPTypes
import Hummingbird
import VSHCore

/// Running an event: what the organiser takes home (the results as CSV).
struct EventController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication

    static let results = Endpoint(.get, "/v1/hunts/{id}/results.csv")
    static let player = Endpoint(.patch, "/v1/players/{username}")
    static var endpoints: [Endpoint] { [results, player] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.results, use: results)
        router.on(Self.player, use: player)
    }

    /// PATCH /v1/players/{username} `{banned}` (organisers) → 200 `{player, banned}`: a banned player's
    /// sessions end at once, they cannot sign in, and they are off the boards; lifting the ban puts
    /// their points back. An organiser cannot ban themselves.
    @Sendable func player(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.requireOrganiser(request, to: "ban players")
        let raw = try context.parameters.require("username")
        let name = raw.removingPercentEncoding ?? raw
        let body = try await JSONBodies.object(request, context: context, required: ["banned"])
        guard case .bool(let banned)? = body["banned"] else {
            throw Problem(.unprocessableContent, "Invalid field", "\"banned\" must be true or false")
        }
        guard let target = try await store.player(named: name) else {
            throw LeagueError.unknownPlayer(name: name)
        }
        if banned && target.id == session.player.id {
            throw Problem(.unprocessableContent, "Invalid field", "an organiser cannot ban themselves")
        }
        try await store.setBanned(banned, player: target.id)
        return JSONBodies.response(.object(["player": .string(target.name), "banned": .bool(banned)]))
    }

    /// GET /v1/hunts/{id}/results.csv (organisers) → the hunt's results, a row a player (or a team,
    /// on a teams hunt or with `?by=team`) by rank (`ResultsCSV`), as a download named after the hunt.
    @Sendable func results(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "export a hunt's results")
        let id = try context.parameters.require("id")
        guard let hunt = try await store.hunt(id: id)?.hunt else {
            throw LeagueError.unknownHunt(id: id, known: try await store.hunts().map(\.hunt.id))
        }
        // A hunt played in teams has a row a team; `?by=player` (or `team`) chooses.
        let byTeam: Bool
        switch request.uri.queryParameters.get("by") {
        case nil: byTeam = hunt.play == .teams
        case "team"?: byTeam = true
        case "player"?: byTeam = false
        default: throw Problem(.badRequest, "Invalid query", "by must be \"player\" or \"team\"")
        }
        let text =
            byTeam
            ? ResultsCSV.text(try await TeamsController.standings(hunt, store: store), hunt: hunt)
            : ResultsCSV.text(try await store.leaderboard(LeaderboardQuery(huntID: id)), hunt: hunt)
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8; header=present", .cacheControl: "private, no-store",
                .contentDisposition: "attachment; filename=\"\(hunt.id)-results.csv\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
