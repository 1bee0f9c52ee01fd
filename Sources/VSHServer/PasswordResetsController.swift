import Foundation
import Hummingbird
import VSHAccounts
import VSHCore

/// Password resets by e-mail: a single-use token that expires, and an answer that never says
/// whether an address is known.
struct PasswordResetsController: Sendable {
    let store: any LeagueStore
    let mailer: Mailer?
    let clock: @Sendable () -> Date
    let resetSeconds: TimeInterval
    /// Where players open the service, for the link in the message.
    let publicURL: @Sendable () -> String
    let limiter: RateLimiter
    let limits: RateLimits

    static let request = Endpoint(.post, "/v1/password-resets")
    static let complete = Endpoint(.post, "/v1/password-resets/{token}")
    static var endpoints: [Endpoint] { [request, complete] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.request, use: request)
        router.on(Self.complete, use: complete)
    }

    /// POST /v1/password-resets `{email}` → 202 whatever the address; each player with that
    /// address gets a message with a token (the message goes out after the answer, so the answer
    /// takes as long for an unknown address). 503 when the server has no `--smtp`.
    @Sendable func request(_ request: Request, context: VSHRequestContext) async throws -> Response {
        try await limiter.take("reset|\(context.clientAddress)", limits.resetsPerAddress)
        let body = try await JSONBodies.object(request, context: context, required: ["email"])
        guard let email = try JSONBodies.string(body, "email") else {
            throw Problem(.unprocessableContent, "Missing field", "\"email\" is required")
        }
        try PlayerRecord.validateEmail(email)
        try await limiter.take("reset-email|\(email.lowercased())", limits.resetsPerAddress)
        guard let mailer else {
            throw Problem(
                .serviceUnavailable, "No e-mail",
                "password resets need e-mail, and this server was started without --smtp")
        }
        // The tokens are made and the message queued after the answer, so that it takes as long
        // for an address nobody gave. One message a request, however many accounts share the
        // address (each named with its own link): a request cannot be multiplied into a flood.
        let (store, now, seconds, base) = (self.store, clock(), resetSeconds, publicURL())
        Task {
            var accounts: [(name: String, token: String)] = []
            var to = email
            for player in (try? await store.players(withEmail: email)) ?? [] {
                let (token, hash) = SessionTokens.make()
                guard
                    (try? await store.createPasswordReset(
                        tokenHash: hash, player: player.id, expiresAt: now.addingTimeInterval(seconds),
                        at: now))
                        != nil
                else { continue }
                accounts.append((player.name, token))
                to = player.email ?? email
            }
            guard !accounts.isEmpty else { return }
            await mailer.enqueue(
                Self.message(to: to, accounts: accounts, base: base, minutes: Int(seconds / 60)),
                note: "password reset for \(accounts.count) account(s)")
        }
        return JSONBodies.response(
            .object(["status": .string("if the address belongs to a player, a message is on its way")]),
            status: .accepted)
    }

    /// POST /v1/password-resets/{token} `{password}` → 204: the new password is set, every session
    /// ends and the token is used up. 404 for an unknown, used or expired token.
    @Sendable func complete(_ request: Request, context: VSHRequestContext) async throws -> Response {
        try await limiter.take("reset|\(context.clientAddress)", limits.resetsPerAddress)
        let token = context.parameters.get("token") ?? ""
        let body = try await JSONBodies.object(request, context: context, required: ["password"])
        guard let password = try JSONBodies.string(body, "password") else {
            throw Problem(.unprocessableContent, "Missing field", "\"password\" is required")
        }
        _ = try Passwords.validate(password).get()
        let hash = try await Authentication.slow { try Passwords.hash(password) }
        guard
            try await store.resetPassword(
                tokenHash: SessionTokens.hash(token), passwordHash: hash, at: clock())
                != nil
        else {
            throw Problem(.notFound, "Not found", "this reset link is unknown, used or expired")
        }
        return Response(status: .noContent)
    }

    /// The reset message: for each account of the address, its name and a link to the web app's
    /// page, then the API call, and how long they work.
    static func message(
        to email: String, accounts: [(name: String, token: String)], base: String, minutes: Int
    )
        -> Mail
    {
        let links = accounts.map { "\($0.name):\n\(base)/reset-password?token=\($0.token)" }
        let greeting = accounts.count == 1 ? "Hello \(accounts[0].name)," : "Hello,"
        let which =
            accounts.count == 1
            ? "Choose a new one here:"
            : "This address belongs to \(accounts.count) players; choose a new password for the one you mean:"
        return Mail(
            to: email, subject: "Your vsh password",
            text: """
                \(greeting)

                someone (we hope you) asked to reset your vsh password. \(which)

                \(links.joined(separator: "\n\n"))

                or with curl, with the token from the link:

                curl -X POST \(base)/v1/password-resets/TOKEN -H 'Content-Type: application/json' -d '{"password":"..."}'

                Each link works once, for \(minutes) minutes. If you did not ask, ignore this message: your password stays as it is.
                """)
    }
}
