import Foundation
import Hummingbird
import VSHCore

/// Players' last positions on the organisers' map, for a hunt that says it shares them
/// (`share_positions`): the player's page sends its position while the hunt is open, the
/// organisers' live page shows where everyone was last. Positions are taken only while the hunt
/// is open, kept one a player (the last), never logged, and deleted once the hunt has closed or
/// stopped sharing them, and with an erased account.
struct PositionsController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    let limiter: RateLimiter
    let limits: RateLimits
    var access: HuntAccess { HuntAccess(store: store, clock: clock) }

    static let report = Endpoint(.put, "/v1/hunts/{id}/position")
    static let list = Endpoint(.get, "/v1/hunts/{id}/positions")
    static var endpoints: [Endpoint] { [report, list] }

    /// A hunt without a window shows the positions of the last day.
    static let unwindowedSpan: TimeInterval = 86_400

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.report, use: report)
        router.on(Self.list, use: list)
    }

    /// PUT /v1/hunts/{id}/position `{lat, lon, accuracy_m}` (a player who may see the hunt) → 204:
    /// their last position, replacing the one before. 409 when the hunt does not share positions
    /// or is not open; 429 past a few a minute.
    @Sendable func report(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let hunt = try await access.require(try context.parameters.require("id"), in: store, request).hunt
        let body = try await JSONBodies.object(
            request, context: context, required: ["lat", "lon", "accuracy_m"])
        func number(_ key: String) throws -> Double {
            guard case .number(let value, _)? = body[key], value.isFinite else {
                throw Problem(.unprocessableContent, "Invalid field", "\"\(key)\" must be a number")
            }
            return value
        }
        let (lat, lon, accuracy) = (try number("lat"), try number("lon"), try number("accuracy_m"))
        guard (-90...90).contains(lat) else {
            throw Problem(.unprocessableContent, "Invalid field", "\"lat\" must be -90 to 90 degrees")
        }
        guard (-180...180).contains(lon) else {
            throw Problem(.unprocessableContent, "Invalid field", "\"lon\" must be -180 to 180 degrees")
        }
        guard (0...100_000).contains(accuracy) else {
            throw Problem(.unprocessableContent, "Invalid field", "\"accuracy_m\" must be 0 to 100000 metres")
        }
        guard hunt.sharePositions else {
            throw Problem(
                .conflict, "Positions not shared", "hunt \"\(hunt.id)\" does not share players' positions")
        }
        let now = clock()
        guard hunt.state(at: now) == .open else {
            throw Problem(
                .conflict, "Hunt not open", "hunt \"\(hunt.id)\" is not open, so no position is taken")
        }
        try await limiter.take("position|\(session.player.id)", limits.positionsPerPlayer)
        try await store.recordPosition(
            PlayerPosition(
                playerID: session.player.id, huntID: hunt.id, lat: lat, lon: lon, accuracyMeters: accuracy,
                at: now))
        return Response(status: .noContent)
    }

    /// GET /v1/hunts/{id}/positions (organisers) → `{hunt, share_positions, state, now, positions:
    /// [{player, team, lat, lon, accuracy_m, at}]}` (`now`: the server's clock, for the ages), newest first: each player's last position since the hunt
    /// opened (or in the last day, for a hunt without a window). Empty once the hunt has closed or
    /// does not share positions, and what was kept is deleted then.
    @Sendable func list(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "see players' positions")
        let id = try context.parameters.require("id")
        guard let hunt = try await store.hunt(id: id)?.hunt else {
            throw LeagueError.unknownHunt(id: id, known: try await store.hunts().map(\.hunt.id))
        }
        let now = clock()
        let state = hunt.state(at: now)
        var rows: [JSONValue] = []
        if hunt.sharePositions && state == .open {
            let since = hunt.startsAt ?? now.addingTimeInterval(-Self.unwindowedSpan)
            let positions = try await store.positions(huntID: hunt.id, since: since)
            var teams: [PlayerID: String] = [:]
            if hunt.play != .solo {
                let members = try await store.members(huntID: hunt.id)
                for team in try await store.teams(huntID: hunt.id) {
                    for member in members[team.id] ?? [] { teams[member.player] = team.name }
                }
            }
            rows = positions.map { p in
                .object([
                    "player": .string(p.player), "team": .optional(teams[p.playerID]), "lat": .double(p.lat),
                    "lon": .double(p.lon), "accuracy_m": .double(p.accuracyMeters),
                    "at": .string(RFC3339.format(p.at)),
                ])
            }
        } else {
            try await store.forgetPositions(huntID: hunt.id)
        }
        return JSONBodies.response(
            .object([
                "hunt": .string(hunt.id), "share_positions": .bool(hunt.sharePositions),
                "state": .string(state.rawValue), "now": .string(RFC3339.format(now)),
                "positions": .array(rows),
            ]))
    }
}
