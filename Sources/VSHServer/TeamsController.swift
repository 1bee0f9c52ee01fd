import Foundation
import Hummingbird
import VSHCore

/// Teams of a hunt that is played in teams (`play`: `teams` or `either`): making one, its page and
/// board, leaving it, and an organiser moving players between teams. Joining one is by its code
/// (`POST /v1/joins`).
struct TeamsController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    let limiter: RateLimiter
    let limits: RateLimits
    var access: HuntAccess { HuntAccess(store: store, clock: clock) }

    static let create = Endpoint(.post, "/v1/hunts/{id}/teams")
    static let list = Endpoint(.get, "/v1/hunts/{id}/teams")
    static let team = Endpoint(.get, "/v1/teams/{team}")
    static let leave = Endpoint(.delete, "/v1/teams/{team}/members/{username}")
    static let move = Endpoint(.put, "/v1/teams/{team}/members/{username}")
    static var endpoints: [Endpoint] { [create, list, team, leave, move] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.create, use: create)
        router.on(Self.list, use: list)
        router.on(Self.team, use: team)
        router.on(Self.leave, use: leave)
        router.on(Self.move, use: move)
    }

    /// POST /v1/hunts/{id}/teams `{name}` → 201 `{team: {id, name}, join_code}`. A player who makes a
    /// team is its first member (leaving their other team of the hunt); an organiser makes it empty,
    /// ahead of the event. 409 for a solo hunt or a name the hunt has (case and accents aside).
    @Sendable func create(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let hunt = try await access.require(try context.parameters.require("id"), in: store, request).hunt
        guard hunt.play != .solo else {
            throw Problem(.conflict, "Solo hunt", "hunt \"\(hunt.id)\" is played alone: it has no teams")
        }
        let body = try await JSONBodies.object(request, context: context, required: ["name"])
        guard let typed = try JSONBodies.string(body, "name") else {
            throw Problem(.unprocessableContent, "Invalid field", "\"name\" must be a string")
        }
        let name: String
        switch Team.name(typed) {
        case .success(let value): name = value
        case .failure(let problem):
            throw Problem(.unprocessableContent, "Invalid field", "\"name\": the team name \(problem.reason)")
        }
        let founder: PlayerID? = session.role == .organiser ? nil : session.player.id
        // Organisers make a team for each group of an event; a player, a few.
        if founder != nil { try await limiter.take("team|\(session.player.id)", limits.teamsPerPlayer) }
        let team = try await store.createTeam(
            huntID: hunt.id, name: name, joinCode: try await freshCode(), founder: founder, at: clock())
        return JSONBodies.response(
            .object([
                "team": .object([
                    "id": .int(Int(team.id)), "name": .string(team.name), "hunt": .string(hunt.id),
                ]),
                "join_code": .string(team.joinCode),
            ]), status: .created)
    }

    /// GET /v1/hunts/{id}/teams → `{play, max_team_size, teams: [{id, name, members}], mine}`: the
    /// hunt's teams with their members' names; `mine` is the viewer's team with its join code (an
    /// organiser sees every team's code).
    @Sendable func list(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let hunt = try await access.require(try context.parameters.require("id"), in: store, request).hunt
        let viewer = try await access.viewer(request)
        let organiser = viewer?.role == .organiser
        let mine =
            try await viewer.asyncMap { try await store.team(of: $0.player.id, huntID: hunt.id) } ?? nil
        var rows: [JSONValue] = []
        let members = try await store.members(huntID: hunt.id)
        for team in try await store.teams(huntID: hunt.id) {
            var fields = Self.summary(team, members: members[team.id] ?? [])
            if organiser { fields["join_code"] = .string(team.joinCode) }
            rows.append(.object(fields))
        }
        var mineValue = JSONValue.null
        if let mine {
            var fields = Self.summary(mine, members: try await store.members(team: mine.id))
            fields["join_code"] = .string(mine.joinCode)
            mineValue = .object(fields)
        }
        return JSONBodies.response(
            .object([
                "hunt": .string(hunt.id), "play": .string(hunt.play.rawValue),
                "max_team_size": hunt.maxTeamSize.map { JSONValue.int($0) } ?? .null, "teams": .array(rows),
                "mine": mineValue,
            ]))
    }

    /// GET /v1/teams/{team} → the team's page: its members, rank, points, and each stop of the hunt
    /// with who of the team got there first. The join code only for its members and organisers.
    @Sendable func team(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let team = try await requireTeam(context)
        let hunt = try await access.require(team.huntID, in: store, request).hunt
        let viewer = try await access.viewer(request)
        let members = try await store.members(team: team.id)
        // Its own row, scored from its check-ins (for who got where first); its rank from the
        // running totals of every team.
        guard
            var standing = TeamBoard.standings(
                hunt: hunt, teams: [team], members: [team.id: members],
                checkIns: try await store.teamCheckIns(huntID: hunt.id, team: team.id),
                badges: try await store.badgeDefinitions(),
                adjustments: try await store.adjustments(huntID: hunt.id)
            ).first
        else { throw Problem(.notFound, "Unknown team", "no team #\(team.id)") }
        standing.rank = try await store.teamRank(huntID: hunt.id, points: standing.points)
        let isMember = members.contains { $0.player == viewer?.player.id }
        var fields: JSONObject = [
            "id": .int(Int(team.id)), "name": .string(team.name), "rank": .int(standing.rank),
            "points": .int(standing.points), "stops_visited": .int(standing.stopsVisited),
            "stops_total": .int(hunt.stops.count), "completed": .bool(standing.completed),
            "badges": .array(standing.badges.map(JSONValue.string)),
            "hunt": .object(["id": .string(hunt.id), "name": .string(hunt.name)]),
            "members": .array(
                members.map {
                    .object(["name": .string($0.name), "joined_at": .string(RFC3339.format($0.joinedAt))])
                }),
            "stops": .array(
                hunt.stops.map { stop in
                    let visit = standing.visits[stop.id]
                    return .object([
                        "id": .string(stop.id), "name": .string(stop.name), "points": .int(stop.points),
                        "visited_by": .optional(visit?.player),
                        "at": .optional(visit.map { RFC3339.format($0.at) }),
                    ])
                }),
        ]
        if isMember || viewer?.role == .organiser { fields["join_code"] = .string(team.joinCode) }
        return JSONBodies.response(.object(fields))
    }

    /// DELETE /v1/teams/{team}/members/{username} (the member, or an organiser) → 204: off the team.
    /// Their check-ins keep the team they counted for.
    @Sendable func leave(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let team = try await requireTeam(context)
        let player = try await requireNamed(context)
        guard player.id == session.player.id || session.role == .organiser else {
            throw Problem(
                .forbidden, "Not yours", "only the member or an organiser can take a player off a team")
        }
        guard try await store.leaveTeam(team.id, player: player.id) else {
            throw Problem(.notFound, "Not a member", "\(player.name) is not on team \"\(team.name)\"")
        }
        return Response(status: .noContent)
    }

    /// PUT /v1/teams/{team}/members/{username} (organisers) → 200 `{team, player}`: puts the player
    /// on the team, off their other team of the hunt; 409 when the team is full.
    @Sendable func move(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "move players between teams")
        let team = try await requireTeam(context)
        let player = try await requireNamed(context)
        let hunt = try await store.hunt(id: team.huntID)?.hunt
        if try await store.joinTeam(team.id, player: player.id, maxSize: hunt?.maxTeamSize, at: clock())
            == .full
        {
            throw Self.full(team, hunt?.maxTeamSize)
        }
        return JSONBodies.response(
            .object([
                "team": .object(["id": .int(Int(team.id)), "name": .string(team.name)]),
                "player": .string(player.name),
            ]))
    }

    /// The 409 for a team at `max_team_size`.
    static func full(_ team: Team, _ size: Int?) -> Problem {
        Problem(
            .conflict, "Team full",
            "team \"\(team.name)\" has \(size.map(String.init) ?? "all its") players, the most the hunt allows"
        )
    }

    /// A join code no hunt and no team has.
    private func freshCode() async throws -> String {
        let hunts = Set(try await store.hunts().compactMap(\.hunt.joinCode))
        while true {
            let code = JoinCode.make()
            if !hunts.contains(code), try await store.team(joinCode: code) == nil { return code }
        }
    }

    private static func summary(_ team: Team, members: [TeamMember]) -> JSONObject {
        [
            "id": .int(Int(team.id)), "name": .string(team.name),
            "members": .array(members.map { .string($0.name) }),
        ]
    }

    private func requireTeam(_ context: VSHRequestContext) async throws -> Team {
        let raw = try context.parameters.require("team")
        guard let id = Int64(raw), let team = try await store.team(id: id) else {
            throw Problem(.notFound, "Unknown team", "no team \"\(raw.prefix(40))\"")
        }
        return team
    }

    private func requireNamed(_ context: VSHRequestContext) async throws -> PlayerRecord {
        let raw = try context.parameters.require("username")
        return try await store.requirePlayer(named: raw.removingPercentEncoding ?? raw)
    }
}

extension Optional {
    /// The wrapped value mapped by an async function.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
