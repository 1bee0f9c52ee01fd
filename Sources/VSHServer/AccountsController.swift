import Foundation
import Hummingbird
import VSHAccounts
import VSHCore
import VSHEngine

/// Accounts and sessions: register, sign in, sign out, one's own profile.
struct AccountsController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    let sessionSeconds: TimeInterval
    let limiter: RateLimiter
    let limits: RateLimits
    /// The league's photos: an erased account's are deleted.
    var photos: (any PhotoStore)? = nil
    /// The pictures drawn from photos: an erased account's are forgotten.
    var pictures: PictureCache? = nil

    static let register = Endpoint(.post, "/v1/accounts")
    static let signIn = Endpoint(.post, "/v1/sessions")
    static let signOut = Endpoint(.delete, "/v1/sessions/current")
    static let me = Endpoint(.get, "/v1/me")
    static let updateMe = Endpoint(.patch, "/v1/me")
    static let eraseMe = Endpoint(.delete, "/v1/me")
    static var endpoints: [Endpoint] { [register, signIn, signOut, me, updateMe, eraseMe] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.register, use: register)
        router.on(Self.signIn, use: signIn)
        router.on(Self.signOut, use: signOut)
        router.on(Self.me, use: me)
        router.on(Self.updateMe, use: updateMe)
        router.on(Self.eraseMe, use: eraseMe)
    }

    /// `{id, username}`.
    static func playerJSON(_ player: PlayerRecord) -> JSONValue {
        .object(["id": .int(Int(player.id.rawValue)), "username": .string(player.name)])
    }

    /// POST /v1/accounts `{username, email, password}` → 201 `{player, token, expires_at}`.
    /// The address's sign-up is counted once it is answered for, not when the password-hashing
    /// queue was full (503): a start line's players who retry after its `Retry-After` do not use
    /// up their address's sign-ups by waiting.
    @Sendable func register(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let key = "register|\(context.clientAddress)"
        try await limiter.check(key, limits.registerPerAddress)
        let name: String
        let email: String
        let hash: String
        do {
            let body = try await JSONBodies.object(
                request, context: context, required: ["username", "email", "password"])
            guard let username = try JSONBodies.string(body, "username"),
                let address = try JSONBodies.string(body, "email"),
                let password = try JSONBodies.string(body, "password")
            else {
                throw Problem(
                    .unprocessableContent, "Missing field", "username, email and password are required")
            }
            // Everything that can be refused is checked before the slow hash.
            _ = try PlayerName.validate(username).get()
            try PlayerRecord.validateEmail(address)
            _ = try Passwords.validate(password).get()
            (name, email) = (username, address)
            hash = try await Authentication.slow { try Passwords.hash(password) }
        } catch let busy as Problem where busy.status == .serviceUnavailable {
            throw busy
        } catch {
            await limiter.spend(key, limits.registerPerAddress)
            throw error
        }
        await limiter.spend(key, limits.registerPerAddress)
        let now = clock()
        let player = try await store.addPlayer(name: name, email: email, passwordHash: hash, at: now)
        return try await startSession(for: player, at: now)
    }

    /// POST /v1/sessions `{username, password}` → 201 `{player, token, expires_at}`; 401 for a wrong
    /// name or a wrong password alike (and as slowly: an unknown name is checked against a decoy hash).
    @Sendable func signIn(_ request: Request, context: VSHRequestContext) async throws -> Response {
        try await limiter.take("sign-in|\(context.clientAddress)", limits.signInPerAddress)
        let body = try await JSONBodies.object(request, context: context, required: ["username", "password"])
        let name = try JSONBodies.string(body, "username") ?? ""
        // A name or an e-mail address (names have no "@"). An address finds its player only when
        // exactly one has it; otherwise it fails as a wrong password does, after the same one hash.
        var named = name
        if name.contains("@") {
            let owners = try await store.players(withEmail: name.trimmingCharacters(in: .whitespaces))
            named = owners.count == 1 ? owners[0].name : ""
        }
        // Limits count the player's name whichever way they were named, an unknown address by itself.
        let key =
            named.isEmpty
            ? "@" + name.trimmingCharacters(in: .whitespaces).lowercased() : PlayerName.key(named)
        let pair = "\(key)|\(context.clientAddress)"
        try await limiter.take("sign-in-pair|\(pair)", limits.signInPerNameAndAddress)
        try await limiter.checkBackOff(pair)
        // A spray from many addresses closes the name to new addresses, not to its owner's.
        let failures = "sign-in-failures|\(key)"
        if await !limiter.isKnown(pair) { try await limiter.check(failures, limits.signInFailuresPerName) }
        let password = try JSONBodies.string(body, "password") ?? ""
        let credentials = named.isEmpty ? nil : try await store.credentials(named: named)
        let hash = credentials?.passwordHash ?? Passwords.decoyHash
        let matches = try await Authentication.slow(cost: Passwords.cost(of: hash)) {
            Passwords.verify(password, hash: hash)
        }
        guard matches, let credentials, credentials.passwordHash != nil else {
            await limiter.spend(failures, limits.signInFailuresPerName)
            await limiter.failed(pair, limits)
            throw Problem(.unauthorized, "Unauthorized", "wrong username or password")
        }
        await limiter.succeeded(pair)
        await limiter.remember(pair)
        return try await startSession(for: credentials.player, at: clock())
    }

    private func startSession(for player: PlayerRecord, at now: Date) async throws -> Response {
        let (token, hash) = SessionTokens.make()
        let expires = now.addingTimeInterval(sessionSeconds)
        try await store.createSession(tokenHash: hash, player: player.id, expiresAt: expires, at: now)
        return JSONBodies.response(
            .object([
                "player": Self.playerJSON(player), "token": .string(token),
                "expires_at": .string(RFC3339.format(expires)),
            ]), status: .created)
    }

    /// DELETE /v1/sessions/current → 204; the token stops working.
    @Sendable func signOut(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await authentication.require(request)
        if let token = Authentication.bearerToken(request) {
            try await store.deleteSession(tokenHash: SessionTokens.hash(token))
        }
        return Response(status: .noContent)
    }

    /// GET /v1/me → the profile with `email` and `role`.
    @Sendable func me(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        guard
            case .object(var profile) = ProfileJSON.profile(
                try await store.profile(player: session.player.id, recent: 10).adjusted(
                    by: try await store.adjustments(of: .player(session.player.id))))
        else { throw Problem(.internalServerError, "Internal error", "profile") }
        profile["email"] = .optional(session.player.email)
        profile["role"] = .string(session.role.rawValue)
        return JSONBodies.response(.object(profile))
    }

    /// DELETE /v1/me `{password}` → 204: the account is erased (`AccountStore.erase`): its name becomes
    /// "Erased player #ID"; its e-mail address, password, picture, sessions and photos are gone; what
    /// its check-ins earned stays on the boards under the new name. The password is required (a
    /// stolen token alone erases nothing), limited as a sign-in.
    @Sendable func eraseMe(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let body = try await JSONBodies.object(request, context: context, required: ["password"])
        let password = try JSONBodies.string(body, "password") ?? ""
        try await limiter.take(
            "sign-in-pair|\(PlayerName.key(session.player.name))|\(context.clientAddress)",
            limits.signInPerNameAndAddress)
        let hash =
            try await store.credentials(named: session.player.name)?.passwordHash ?? Passwords.decoyHash
        guard
            try await Authentication.slow(
                cost: Passwords.cost(of: hash), { Passwords.verify(password, hash: hash) })
        else {
            throw Problem(.forbidden, "Wrong password", "the password is not right: nothing was erased")
        }
        let keys = try await store.erase(player: session.player.id)
        for key in keys { try await photos?.delete(key) }
        pictures?.forget { entry in entry.hasPrefix("collage|") || keys.contains { entry.hasSuffix("|" + $0) }
        }
        return Response(status: .noContent)
    }

    /// PATCH /v1/me `{current_password, email?, password?}` → 200 `{player, email, token, expires_at}`.
    /// The current password is required for either change (a stolen token alone changes nothing);
    /// a new password ends every session, this one included, and the answer carries a fresh token.
    @Sendable func updateMe(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let body = try await JSONBodies.object(
            request, context: context, required: ["current_password"], optional: ["email", "password"])
        let current = try JSONBodies.string(body, "current_password") ?? ""
        let email = try JSONBodies.string(body, "email")
        let password = try JSONBodies.string(body, "password")
        guard email != nil || password != nil else {
            throw Problem(
                .unprocessableContent, "Nothing to change", "send a new email, a new password or both")
        }
        // Everything that can be refused is checked before the slow hash.
        if let email { try PlayerRecord.validateEmail(email) }
        if let password { _ = try Passwords.validate(password).get() }
        try await limiter.take(
            "sign-in-pair|\(PlayerName.key(session.player.name))|\(context.clientAddress)",
            limits.signInPerNameAndAddress)
        let hash =
            try await store.credentials(named: session.player.name)?.passwordHash ?? Passwords.decoyHash
        guard
            try await Authentication.slow(
                cost: Passwords.cost(of: hash), { Passwords.verify(current, hash: hash) })
        else {
            throw Problem(.forbidden, "Wrong password", "the current password is not right")
        }
        if let email { try await store.setEmail(email, player: session.player.id) }
        var answer: JSONObject = [
            "player": Self.playerJSON(session.player), "email": .optional(email ?? session.player.email),
            "token": .null, "expires_at": .null,
        ]
        if let password {
            let newHash = try await Authentication.slow { try Passwords.hash(password) }
            try await store.setPasswordHash(newHash, player: session.player.id)
            let now = clock()
            let (token, tokenHash) = SessionTokens.make()
            let expires = now.addingTimeInterval(sessionSeconds)
            try await store.createSession(
                tokenHash: tokenHash, player: session.player.id, expiresAt: expires, at: now)
            answer["token"] = .string(token)
            answer["expires_at"] = .string(RFC3339.format(expires))
        }
        return JSONBodies.response(.object(answer))
    }
}
