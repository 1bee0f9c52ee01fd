import Foundation
import HTTPTypes
import Hummingbird
import VSHCore
import VSHEngine

/// Joining private hunts by their codes, and the codes' QR codes for the organiser to print or
/// project.
struct JoinsController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    let limiter: RateLimiter
    let limits: RateLimits
    /// The service's public address: the QR code holds `PUBLIC_URL/join/CODE`.
    let publicURL: @Sendable () -> String

    static let join = Endpoint(.post, "/v1/joins")
    static let joinCodeSVG = Endpoint(.get, "/v1/hunts/{id}/join-code.svg")
    static let joinCodePNG = Endpoint(.get, "/v1/hunts/{id}/join-code.png")
    static let stopCodeSVG = Endpoint(.get, "/v1/stops/{id}/code.svg")
    static let stopCodePNG = Endpoint(.get, "/v1/stops/{id}/code.png")
    static var endpoints: [Endpoint] { [join, joinCodeSVG, joinCodePNG, stopCodeSVG, stopCodePNG] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.join, use: join)
        router.on(Self.joinCodeSVG) { request, context in try await qrCode(request, context, png: false) }
        router.on(Self.joinCodePNG) { request, context in try await qrCode(request, context, png: true) }
        router.on(Self.stopCodeSVG) { request, context in try await stopQRCode(request, context, png: false) }
        router.on(Self.stopCodePNG) { request, context in try await stopQRCode(request, context, png: true) }
    }

    /// POST /v1/joins `{code}` → 200 `{hunt: {id, name}, team}`: the player joined the private hunt
    /// the code names (joining again changes nothing), or the team (`team: {id, name}`; 409 when
    /// it is full). 404 for a code no hunt has; wrong codes
    /// are counted per player and per address, and past either limit every try is refused (429), so
    /// that a right answer cannot be told from a wrong one while guessing.
    @Sendable func join(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let body = try await JSONBodies.object(request, context: context, required: ["code"])
        guard let typed = try JSONBodies.string(body, "code") else {
            throw Problem(.unprocessableContent, "Invalid field", "\"code\" must be a string")
        }
        let byPlayer = "join-code|player|\(session.player.id)"
        let byAddress = "join-code|address|\(context.clientAddress)"
        try await limiter.check(byPlayer, limits.wrongJoinCodesPerPlayer)
        try await limiter.check(byAddress, limits.wrongJoinCodesPerAddress)
        let code = JoinCode.normalized(typed)
        let hunts = try await store.hunts().map(\.hunt)
        if code.count <= JoinCode.maxLength, let hunt = hunts.first(where: { $0.joinCode == code }) {
            try await store.joinHunt(player: session.player.id, huntID: hunt.id, at: clock())
            return JSONBodies.response(
                .object([
                    "hunt": .object(["id": .string(hunt.id), "name": .string(hunt.name)]), "team": .null,
                ]))
        }
        // A team's code: the player is on the team (off their other team of its hunt), and has
        // joined its hunt.
        if code.count <= JoinCode.maxLength, let team = try await store.team(joinCode: code),
            let hunt = hunts.first(where: { $0.id == team.huntID })
        {
            if try await store.joinTeam(
                team.id, player: session.player.id, maxSize: hunt.maxTeamSize, at: clock())
                == .full
            {
                throw TeamsController.full(team, hunt.maxTeamSize)
            }
            return JSONBodies.response(
                .object([
                    "hunt": .object(["id": .string(hunt.id), "name": .string(hunt.name)]),
                    "team": .object(["id": .int(Int(team.id)), "name": .string(team.name)]),
                ]))
        }
        await limiter.spend(byPlayer, limits.wrongJoinCodesPerPlayer)
        await limiter.spend(byAddress, limits.wrongJoinCodesPerAddress)
        throw Problem(.notFound, "Unknown code", "no hunt or team has this code: check it with the organiser")
    }

    /// GET /v1/hunts/{id}/join-code.svg and .png (organisers) → the QR code of `PUBLIC_URL/join/CODE`.
    func qrCode(_ request: Request, _ context: VSHRequestContext, png: Bool) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "print a hunt's join code")
        let id = try context.parameters.require("id")
        guard let hunt = try await store.hunt(id: id)?.hunt else {
            throw LeagueError.unknownHunt(id: id, known: try await store.hunts().map(\.hunt.id))
        }
        guard let code = hunt.joinCode else {
            throw Problem(
                .notFound, "No join code", "hunt \"\(id)\" has no join code (a public hunt needs none)")
        }
        let url = "\(publicURL())/join/\(code)"
        guard let qr = QRCode(url) else {
            throw Problem(.internalServerError, "No QR code", "the address is too long for a QR code")
        }
        let body =
            png ? qr.png(scale: 10) : Array(qr.svg(module: 10, title: "Join \(hunt.name): \(url)").utf8)
        return Self.picture(body, png: png, name: "\(hunt.id)-join-code")
    }

    /// GET /v1/stops/{id}/code.svg and .png (organisers) → the QR code of
    /// `PUBLIC_URL/stops/ID?code=CODE`, the stop's printed code: scanned at the stop, it opens the
    /// stop's page and checks in with the code. A stop whose code rotates has its screen instead.
    func stopQRCode(_ request: Request, _ context: VSHRequestContext, png: Bool) async throws -> Response {
        _ = try await authentication.requireOrganiser(request, to: "print a stop's code")
        let raw = try context.parameters.require("id")
        let id = raw.removingPercentEncoding ?? raw
        guard let stop = try await store.hunts().lazy.flatMap(\.hunt.stops).first(where: { $0.id == id })
        else {
            throw Problem(.notFound, "Unknown stop", "there is no stop \"\(id.prefix(64))\"")
        }
        guard let code = stop.code else {
            let detail =
                stop.rotatingCode == nil
                ? "stop \"\(id)\" has no printed code (give it one in the console or with vsh-master stop set --code auto)"
                : "the code of stop \"\(id)\" rotates: its screen is /display/\(id)"
            throw Problem(.notFound, "No printed code", detail)
        }
        let url = StopCodeSheet.url(publicURL: publicURL(), stop: stop.id, code: code)
        guard let qr = QRCode(url) else {
            throw Problem(.internalServerError, "No QR code", "the address is too long for a QR code")
        }
        let body = png ? qr.png(scale: 10) : Array(qr.svg(module: 10, title: "\(stop.name): \(url)").utf8)
        return Self.picture(body, png: png, name: "\(stop.id)-code")
    }

    /// An SVG or PNG answer that no one caches and no browser runs anything in.
    static func picture(_ body: [UInt8], png: Bool, name: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: png ? "image/png" : "image/svg+xml", .cacheControl: "private, no-store",
                HTTPField.Name("Content-Security-Policy")!:
                    "default-src 'none'; style-src 'unsafe-inline'; sandbox",
                .contentDisposition: "inline; filename=\"\(name).\(png ? "png" : "svg")\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
