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
    static let stopDisplay = Endpoint(.get, "/v1/stops/{id}/display")
    static var endpoints: [Endpoint] {
        [join, joinCodeSVG, joinCodePNG, stopCodeSVG, stopCodePNG, stopDisplay]
    }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.join, use: join)
        router.on(Self.joinCodeSVG) { request, context in try await qrCode(request, context, png: false) }
        router.on(Self.joinCodePNG) { request, context in try await qrCode(request, context, png: true) }
        router.on(Self.stopCodeSVG) { request, context in try await stopQRCode(request, context, png: false) }
        router.on(Self.stopCodePNG) { request, context in try await stopQRCode(request, context, png: true) }
        router.on(Self.stopDisplay, use: display)
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

    /// How far ahead a screen is given its codes: it keeps showing them this long without a connection.
    static let displayAhead: Double = 4 * 3600

    /// GET /v1/stops/{id}/display (an organiser, or `?token=` the stop's screen link) → what the screen
    /// at a stop with a rotating code shows: `{stop, name, hunt, hunt_name, step_s, digits, now,
    /// codes: [{at, code, qr: {size, bits}}]}`, each 30-s code from the previous step to four hours
    /// ahead with its QR code (`PUBLIC_URL/stops/ID?code=CODE`; `bits` the modules row by row, dark
    /// 1, most significant bit first, in Base64), so that the page keeps going on its own clock
    /// without a connection. Organisers also get `screen_url`, the link for one screen. Never the
    /// secret.
    @Sendable func display(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let raw = try context.parameters.require("id")
        let id = raw.removingPercentEncoding ?? raw
        let token: String? = request.uri.queryParameters.get("token").map { String($0) }
        var organiser = false
        if token == nil {
            _ = try await authentication.requireOrganiser(request, to: "open a stop's screen")
            organiser = true
        }
        let unknown = Problem(
            .notFound, "Unknown screen", "no stop \"\(id.prefix(64))\" has a screen with this link")
        let hunts = try await store.hunts().map(\.hunt)
        guard let hunt = hunts.first(where: { $0.stops.contains { $0.id == id } }),
            let stop = hunt.stops.first(where: { $0.id == id })
        else { throw unknown }
        guard let secret = stop.rotatingCode?.secret, let key = Base32.decode(secret.revealed) else {
            if organiser {
                throw Problem(
                    .notFound, "No rotating code",
                    "stop \"\(id)\" has no rotating code (tick \"A screen at the stop shows a code\" in the console)"
                )
            }
            throw unknown
        }
        if let token, !RotatingCode.isDisplayToken(token, secret: secret, stop: stop.id) { throw unknown }
        let now = clock()
        let first = TOTP.counter(at: now) - 1
        let steps = Int64(Self.displayAhead / TOTP.step) + 1
        var codes: [JSONValue] = []
        codes.reserveCapacity(Int(steps) + 1)
        for counter in first...(first + steps) {
            let code = TOTP.code(secret: key, counter: counter)
            let url = StopCodeSheet.url(publicURL: publicURL(), stop: stop.id, code: Secret(code))
            guard let qr = QRCode(url) else { continue }
            codes.append(
                .object([
                    "at": .int(Int(counter) * Int(TOTP.step)), "code": .string(code),
                    "qr": .object(["size": .int(qr.width), "bits": .string(Self.bits(qr))]),
                ]))
        }
        var fields: JSONObject = [
            "stop": .string(stop.id), "name": .string(stop.name), "hunt": .string(hunt.id),
            "hunt_name": .string(hunt.name), "timezone": .string(hunt.timeZone),
            "step_s": .int(Int(TOTP.step)), "digits": .int(TOTP.digits),
            "now": .string(RFC3339.format(now)), "codes": .array(codes),
        ]
        if organiser, let token = RotatingCode.displayToken(secret: secret, stop: stop.id) {
            fields["screen_url"] = .string("\(publicURL())/display/\(stop.id)?token=\(token)")
        }
        var response = JSONBodies.response(.object(fields))
        response.headers[.cacheControl] = "private, no-store"
        return response
    }

    /// A QR code's modules row by row, dark 1, most significant bit first, in Base64.
    static func bits(_ qr: QRCode) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var count = 0
        for row in qr.modules {
            for dark in row {
                byte = (byte << 1) | (dark ? 1 : 0)
                count += 1
                if count == 8 {
                    bytes.append(byte)
                    byte = 0
                    count = 0
                }
            }
        }
        if count > 0 { bytes.append(byte << UInt8(8 - count)) }
        return Data(bytes).base64EncodedString()
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
