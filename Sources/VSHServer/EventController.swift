import Foundation
import HTTPTypes
import Hummingbird
import VSHCore
import VSHEngine

/// Running an event: what the organiser takes home (the results as CSV).
struct EventController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    /// The league's photos (for `photos.zip`).
    var photos: (any PhotoStore)? = nil
    /// Where photos are decoded.
    var folder: String = NSTemporaryDirectory()

    static let results = Endpoint(.get, "/v1/hunts/{id}/results.csv")
    static let player = Endpoint(.patch, "/v1/players/{username}")
    static let adjust = Endpoint(.post, "/v1/adjustments")
    static let adjustments = Endpoint(.get, "/v1/adjustments")
    static let photoArchive = Endpoint(.get, "/v1/hunts/{id}/photos.zip")
    static var endpoints: [Endpoint] { [results, player, adjust, adjustments, photoArchive] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.results, use: results)
        router.on(Self.player, use: player)
        router.on(Self.adjust, use: adjust)
        router.on(Self.adjustments, use: adjustments)
        router.on(Self.photoArchive, use: photoArchive)
    }

    /// The longest side of an exported photo.
    static let exportSide = 2048

    /// GET /v1/hunts/{id}/photos.zip (organisers) → the hunt's accepted photos as a ZIP, streamed:
    /// `manifest.csv` first (`file, checkin, player, team, stop, stop_name, received_at`, and
    /// `received_local` on the hunt's clock; RFC 4180),
    /// then `photos/<checkin>-<stop>.jpg`, each drawn anew upright (at most 2048 px) without its
    /// metadata (no GPS, no camera). One photo is in memory at a time.
    @Sendable func photoArchive(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "export a hunt's photos")
        let id = try context.parameters.require("id")
        guard let hunt = try await store.hunt(id: id)?.hunt else {
            throw LeagueError.unknownHunt(id: id, known: try await store.hunts().map(\.hunt.id))
        }
        // The accepted check-ins with a photo, oldest first (their rows only: a few hundred bytes each).
        var items: [FeedItem] = []
        var before: Int64?
        while true {
            let page = try await store.feed(huntID: hunt.id, before: before, limit: 500)
            items += page.filter { $0.state.counts && $0.hasPhoto }
            guard page.count == 500, let last = page.last?.id else { break }
            before = last
        }
        items.reverse()
        // The photos still stored (an erased account's are gone): the manifest names only those.
        var keys: [Int64: String] = [:]
        for item in items {
            if let key = try await store.photo(ofCheckIn: item.id)?.photoFile,
                await photos?.exists(key) == true
            {
                keys[item.id] = key
            }
        }
        items = items.filter { keys[$0.id] != nil }
        var teams: [Int64: String] = [:]
        for team in Set(items.compactMap(\.team)) { teams[team] = try await store.team(id: team)?.name }
        let name: @Sendable (FeedItem) -> String = { item in "photos/\(item.id)-\(item.stopID ?? "none").jpg"
        }
        let local = ResultsCSV.localFormatter(hunt)
        var manifest = [
            ["file", "checkin", "player", "team", "stop", "stop_name", "received_at", "received_local"]
                .joined(
                    separator: ",")
        ]
        for item in items {
            manifest.append(
                [
                    name(item), String(item.id), item.player, item.team.flatMap { teams[$0] } ?? "",
                    item.stopID ?? "", item.stopName ?? "", RFC3339.format(item.receivedAt),
                    local.string(from: item.receivedAt),
                ].map(ResultsCSV.field).joined(separator: ","))
        }
        let now = clock()
        let parts = Calendar(identifier: .gregorian).dateComponents(
            in: TimeZone(identifier: "UTC")!, from: now)
        let (photos, folder, listed, keyed) = (self.photos, self.folder, items, keys)
        let manifestBytes = Array((manifest.joined(separator: "\r\n") + "\r\n").utf8)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip", .cacheControl: "private, no-store",
                .contentDisposition: "attachment; filename=\"\(hunt.id)-photos.zip\"",
            ],
            body: ResponseBody { writer in
                var zip = ZipStream(
                    year: parts.year ?? 2026, month: parts.month ?? 1, day: parts.day ?? 1,
                    hour: parts.hour ?? 0,
                    minute: parts.minute ?? 0)
                try await writer.write(ByteBuffer(bytes: zip.file("manifest.csv", manifestBytes)))
                for item in listed {
                    // A photo that cannot be read now is written empty, so the manifest stays true.
                    guard let key = keyed[item.id], let original = try await photos?.get(key),
                        let drawn = try? Avatar.fitted(
                            from: original, folder: folder, longest: Self.exportSide)
                    else {
                        try await writer.write(ByteBuffer(bytes: zip.file(name(item), [])))
                        continue
                    }
                    try await writer.write(ByteBuffer(bytes: zip.file(name(item), drawn)))
                }
                try await writer.write(ByteBuffer(bytes: zip.finish()))
                try await writer.finish(nil)
            })
    }

    /// POST /v1/adjustments `{player | team, hunt?, points, reason}` (organisers) → 201 the adjustment:
    /// points given or taken, with the reason the player is told. A team's counts in its hunt; a
    /// player's in the hunt named (its board and results) and on the all-time board.
    @Sendable func adjust(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.requireOrganiser(request, to: "adjust points")
        let body = try await JSONBodies.object(
            request, context: context, required: ["points", "reason"], optional: ["player", "team", "hunt"])
        guard case .number(let value, _)? = body["points"], value == value.rounded(), abs(value) <= 1e9 else {
            throw Problem(.unprocessableContent, "Invalid field", "\"points\" must be a whole number")
        }
        let points = Int(value)
        let reason = (try JSONBodies.string(body, "reason") ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        if let problem = Adjustment.problem(points: points, reason: reason) {
            throw Problem(.unprocessableContent, "Invalid field", problem)
        }
        var huntID = try JSONBodies.string(body, "hunt")
        if let id = huntID, try await store.hunt(id: id) == nil {
            throw Problem(.unprocessableContent, "Invalid field", "\"hunt\": no hunt \"\(id)\"")
        }
        let subject: Adjustment.Subject
        var named: JSONObject = [:]
        switch (try JSONBodies.string(body, "player"), body["team"]) {
        case (let name?, nil), (let name?, .null?):
            guard let player = try await store.player(named: name) else {
                throw Problem(.unprocessableContent, "Invalid field", "\"player\": no player \"\(name)\"")
            }
            subject = .player(player.id)
            named["player"] = .string(player.name)
        case (nil, .number(let number, _)?):
            guard let team = try await store.team(id: Int64(exactly: number) ?? -1) else {
                throw Problem(
                    .unprocessableContent, "Invalid field",
                    "\"team\": no team \(JSONValue.number(number, isInteger: false).compactText)")
            }
            if let id = huntID, id != team.huntID {
                throw Problem(
                    .unprocessableContent, "Invalid field",
                    "\"hunt\": team \"\(team.name)\" plays \"\(team.huntID)\", not \"\(id)\"")
            }
            huntID = team.huntID
            subject = .team(team.id)
            named["team"] = .object(["id": .int(Int(team.id)), "name": .string(team.name)])
        default:
            throw Problem(
                .unprocessableContent, "Invalid field",
                "name one \"player\" (a name) or one \"team\" (its number)")
        }
        let made = try await store.adjust(
            subject, huntID: huntID, points: points, reason: reason, by: session.player.name, at: clock())
        return JSONBodies.response(.object(Self.json(made, named: named)), status: .created)
    }

    /// GET /v1/adjustments?hunt=ID (organisers) → the hunt's adjustments, oldest first.
    @Sendable func adjustments(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "read the adjustments")
        guard let huntID = request.uri.queryParameters.get("hunt") else {
            throw Problem(.badRequest, "Invalid query", "name the hunt: hunt=ID")
        }
        guard try await store.hunt(id: huntID) != nil else {
            throw LeagueError.unknownHunt(id: huntID, known: try await store.hunts().map(\.hunt.id))
        }
        var rows: [JSONValue] = []
        for made in try await store.adjustments(huntID: huntID) {
            var named: JSONObject = [:]
            switch made.subject {
            case .player(let id): named["player"] = .optional(try await store.player(id: id)?.name)
            case .team(let id):
                named["team"] = .object([
                    "id": .int(Int(id)), "name": .optional(try await store.team(id: id)?.name),
                ])
            }
            rows.append(.object(Self.json(made, named: named)))
        }
        return JSONBodies.response(.array(rows))
    }

    private static func json(_ made: Adjustment, named: JSONObject) -> JSONObject {
        var fields = named
        fields["id"] = .int(Int(made.id))
        fields["hunt"] = .optional(made.huntID)
        fields["points"] = .int(made.points)
        fields["reason"] = .string(made.reason)
        fields["by"] = .string(made.by)
        fields["at"] = .string(RFC3339.format(made.at))
        return fields
    }

    /// PATCH /v1/players/{username} `{banned}` (organisers) → 200 `{player, banned}`: a banned player's
    /// sessions end at once, they cannot sign in, and they are off the boards; lifting the ban puts
    /// their points back. An organiser cannot ban themselves.
    @Sendable func player(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.requireOrganiser(request, to: "rename or ban players")
        let raw = try context.parameters.require("username")
        let name = raw.removingPercentEncoding ?? raw
        let body = try await JSONBodies.object(
            request, context: context, required: [], optional: ["banned", "username"])
        var banned: Bool?
        switch body["banned"] {
        case nil: break
        case .bool(let value)?: banned = value
        default: throw Problem(.unprocessableContent, "Invalid field", "\"banned\" must be true or false")
        }
        let newName = try JSONBodies.string(body, "username")
        guard banned != nil || newName != nil else {
            throw Problem(
                .unprocessableContent, "Nothing to change", "send a new \"username\", \"banned\" or both")
        }
        guard var target = try await store.player(named: name) else {
            throw LeagueError.unknownPlayer(name: name)
        }
        if banned == true && target.id == session.player.id {
            throw Problem(.unprocessableContent, "Invalid field", "an organiser cannot ban themselves")
        }
        // A rename first: refused (a taken or look-alike name, 409), nothing changes.
        if let newName { target = try await store.rename(player: target.id, to: newName) }
        if let banned { try await store.setBanned(banned, player: target.id) }
        var answer: JSONObject = ["player": .string(target.name)]
        if let banned { answer["banned"] = .bool(banned) }
        return JSONBodies.response(.object(answer))
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
            ? ResultsCSV.text(try await store.teamBoard(huntID: hunt.id, limit: nil), hunt: hunt)
            : ResultsCSV.text(
                try await store.leaderboard(LeaderboardQuery(huntID: id)), hunt: hunt,
                adjustments: try await store.adjustments(huntID: id))
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8; header=present", .cacheControl: "private, no-store",
                .contentDisposition: "attachment; filename=\"\(hunt.id)-results.csv\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
