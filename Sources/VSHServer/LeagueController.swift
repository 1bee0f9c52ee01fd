import Foundation
import Hummingbird
import VSHCore
import VSHEngine

/// What anyone may read: the hunt feed, one hunt as GeoJSON, leaderboards, public profiles, health.
struct LeagueController: Sendable {
    /// The league: health asks it.
    let store: any LeagueStore
    /// Where the public reads go: the league itself, or a replica (`vsh serve --read-db`).
    let reads: any LeagueStore
    /// Answers kept until the next write (or for a second: a hunt's state changes with the clock).
    let cache: ReadCache
    /// Now, for each hunt's state.
    let clock: @Sendable () -> Date
    /// Who sees which private hunts.
    var access: HuntAccess { HuntAccess(store: store, clock: clock) }

    static let health = Endpoint(.get, "/healthz")
    static let hunts = Endpoint(.get, "/v1/hunts")
    static let hunt = Endpoint(.get, "/v1/hunts/{id}")
    static let leaderboard = Endpoint(.get, "/v1/leaderboard")
    static let player = Endpoint(.get, "/v1/players/{username}")
    static var endpoints: [Endpoint] { [health, hunts, hunt, leaderboard, player] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.health, use: health)
        router.on(Self.hunts, use: hunts)
        router.on(Self.hunt, use: hunt)
        router.on(Self.leaderboard, use: leaderboard)
        router.on(Self.player, use: player)
    }

    /// GET /healthz → 200 `{status: "ok"}` when the database answers.
    @Sendable func health(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await store.player(id: PlayerID(0))
        return JSONBodies.response(.object(["status": .string("ok")]))
    }

    /// GET /v1/hunts → the feed: each hunt's metadata with `total_points`, a count of `stops` and its
    /// `state` now (`upcoming`, `open`, `closed`).
    /// Private hunts are in it for their players, organisers and moderators only.
    @Sendable func hunts(_ request: Request, context: VSHRequestContext) async throws -> Response {
        // Without a token only public hunts are shown: no lookup before the cached answer.
        var seen: Set<String> = []
        if Authentication.bearerToken(request) != nil {
            seen = try await access.privateHuntsSeen(among: try await reads.hunts().map(\.hunt), request)
        }
        return try await cache.answer(request, variant: seen.sorted().joined(separator: ",")) {
            let now = clock()
            let feed = JSONValue.array(
                try await reads.hunts().filter { $0.hunt.visibility == .public || seen.contains($0.hunt.id) }
                    .map { HuntJSON.hunt($0, withStops: false, at: now) })
            return (ByteBuffer(string: feed.compactText), "application/json")
        }
    }

    /// GET /v1/hunts/{id} → the hunt as its hunt file: an RFC 7946 FeatureCollection, with its
    /// `state` now as a member of its own beside `hunt`.
    @Sendable func hunt(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let raw = try context.parameters.require("id")
        let id = raw.removingPercentEncoding ?? raw
        // A private hunt is unknown to whoever did not join it (checked before the cached answer).
        _ = try await access.require(id, in: reads, request)
        return try await cache.answer(request) {
            guard let stored = try await reads.hunt(id: id) else {
                throw LeagueError.unknownHunt(id: id, known: [])
            }
            // The join code and stops' codes are the organisers' secrets: never in what players are sent.
            var document = HuntFile.document(of: stored.hunt, forPlayers: true)
            document["state"] = .string(stored.hunt.state(at: clock()).rawValue)
            return (ByteBuffer(string: JSONValue.object(document).prettyText), "application/geo+json")
        }
    }

    /// GET /v1/leaderboard?hunt=&since=&until=&limit= → rows as `vsh leaderboard --format json`.
    @Sendable func leaderboard(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        func time(_ key: String) throws -> Date? {
            guard let text = query.get(key) else { return nil }
            guard let date = RFC3339.parse(text) else {
                throw Problem(.badRequest, "Invalid query", "\(key) must be an RFC 3339 time")
            }
            return date
        }
        var limit: Int?
        if let text = query.get("limit") {
            guard let value = Int(text), (1...10_000).contains(value) else {
                throw Problem(.badRequest, "Invalid query", "limit must be a number from 1 to 10000")
            }
            limit = value
        }
        if let by = query.get("by"), by != "player" {
            guard by == "team" else {
                throw Problem(.badRequest, "Invalid query", "by must be \"player\" or \"team\"")
            }
            guard let huntID = query.get("hunt") else {
                throw Problem(.badRequest, "Invalid query", "a team board is a hunt's: add hunt=ID")
            }
            let hunt = try await access.require(huntID, in: reads, request).hunt
            return try await cache.answer(request, shared: Self.sharedBoard(hunt)) {
                let rows = try await reads.teamBoard(huntID: hunt.id, limit: limit ?? 10_000).map {
                    row -> JSONValue in
                    .object([
                        "rank": .int(row.rank), "team": .string(row.team.name),
                        "team_id": .int(Int(row.team.id)),
                        "points": .int(row.points), "stops_visited": .int(row.stopsVisited),
                        "completed": .bool(row.completed),
                        "members": .array(row.members.map(JSONValue.string)),
                    ])
                }
                return (ByteBuffer(string: JSONValue.array(Array(rows)).compactText), "application/json")
            }
        }
        var shared: String? = Self.leaderboard.path
        if let huntID = query.get("hunt") {
            shared = Self.sharedBoard(try await access.require(huntID, in: reads, request).hunt)
        }
        let board = LeaderboardQuery(
            huntID: query.get("hunt"), since: try time("since"), until: try time("until"), limit: limit)
        return try await cache.answer(request, shared: shared) {
            let entries = try await reads.leaderboard(board)
            // Each row with its player's picture (`avatar_url`, null for none), read in one statement.
            let avatars = try await reads.avatars(players: entries.map(\.playerID))
            let withPictures = zip(LeaderboardFormat.rows(entries), entries).map { row, entry -> JSONValue in
                guard case .object(var fields) = row else { return row }
                fields["avatar_url"] = .optional(
                    avatars[entry.playerID].map { Self.avatarURL(entry.player, key: $0) })
                return .object(fields)
            }
            return (ByteBuffer(string: JSONValue.array(withPictures).compactText), "application/json")
        }
    }

    /// A board's answer is the same for everyone (`ReadCache.Entry.shared`) unless its hunt is
    /// private, when only its players and staff may read it.
    static func sharedBoard(_ hunt: Hunt) -> String? {
        hunt.visibility == .public ? leaderboard.path : nil
    }

    /// GET /v1/players/{username} → the public profile (never the e-mail address).
    @Sendable func player(_ request: Request, context: VSHRequestContext) async throws -> Response {
        // Path parameters arrive percent-encoded ("Ann%20Lee").
        let raw = try context.parameters.require("username")
        let name = raw.removingPercentEncoding ?? raw
        // A private hunt's progress and check-ins are shown only to whoever may see the hunt.
        let all = try await reads.hunts().map(\.hunt)
        let hidden = Set(all.filter { $0.visibility == .private }.map(\.id)).subtracting(
            try await access.privateHuntsSeen(among: all, request))
        return try await cache.answer(request, variant: hidden.sorted().joined(separator: ",")) {
            guard let player = try await reads.player(named: name) else {
                throw LeagueError.unknownPlayer(name: name)
            }
            // Others see a player's accepted check-ins only; their own profile (`/v1/me`) has them all.
            var profile = ProfileJSON.profile(
                try await reads.profile(player: player.id, recent: 10, acceptedOnly: true).adjusted(
                    by: try await reads.adjustments(of: .player(player.id)).filter {
                        !hidden.contains($0.huntID ?? "")
                    }
                ))
            if !hidden.isEmpty, case .object(var fields) = profile {
                for key in ["hunts", "recent"] {
                    if case .array(let items)? = fields[key] {
                        fields[key] = .array(
                            items.filter { item in
                                guard case .object(let entry) = item, case .string(let hunt)? = entry["hunt"]
                                else {
                                    return true
                                }
                                return !hidden.contains(hunt)
                            })
                    }
                }
                profile = .object(fields)
            }
            // The picture's URL changes with the picture, so a page never shows a stale one.
            if case .object(var fields) = profile {
                fields["avatar_url"] = .optional(
                    try await reads.avatar(player: player.id).map { Self.avatarURL(name, key: $0) })
                profile = .object(fields)
            }
            return (ByteBuffer(string: profile.compactText), "application/json")
        }
    }

    /// A picture's URL, which changes with the picture so that a page never shows a stale one.
    static func avatarURL(_ name: String, key: String) -> String {
        "/v1/players/\(PathSegment.encode(name))/avatar?v=\(key.split(separator: "/").last?.prefix(16) ?? "")"
    }
}
