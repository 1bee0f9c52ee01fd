import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix
import Synchronization
import VSHAccounts
import VSHCore

/// Bearer tokens: the `Authorization` header's token, looked up by its hash.
struct Authentication: Sendable {
    let store: any LeagueStore
    let clock: @Sendable () -> Date

    /// The token of an `Authorization: Bearer TOKEN` header, or nil.
    static func bearerToken(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingWhiteSpace()
        return token.isEmpty ? nil : token
    }

    /// The signed-in session of a request.
    /// - Throws: `Problem` 401 (with `WWW-Authenticate`'s scheme in the detail) without a valid token.
    func require(_ request: Request) async throws -> Session {
        guard let token = Self.bearerToken(request) else {
            throw Problem(
                .unauthorized, "Unauthorized", "send Authorization: Bearer TOKEN (from POST /v1/sessions)")
        }
        guard let session = try await store.session(tokenHash: SessionTokens.hash(token), at: clock()) else {
            throw Problem(.unauthorized, "Unauthorized", "the token is unknown or has expired; sign in again")
        }
        return session
    }

    /// The signed-in session of an organiser.
    /// - Throws: `Problem` 401 without a valid token, 403 ("only organisers may `what`") for anyone else.
    func requireOrganiser(_ request: Request, to what: String) async throws -> Session {
        let session = try await require(request)
        guard session.role == .organiser else {
            throw Problem(.forbidden, "Forbidden", "only organisers may \(what)")
        }
        return session
    }

    /// bcrypt at work factor `cost` off the cooperative pool (it takes a quarter of a second at 12,
    /// on purpose), with at most `maxSlowWork` of work running or waiting, a hash weighing
    /// 2^(cost - 10): past that, 503 with Retry-After at once, so that a flood of sign-ins from many
    /// addresses cannot make a real one wait for minutes. The same seconds of waiting whatever the
    /// cost: 32 hashes at 12, 128 at 10.
    static func slow<T: Sendable>(cost: UInt8 = Passwords.cost, _ work: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        let weight = 1 << Int(min(max(cost, 10), 16) - 10)
        let (admitted, _) = slowWork.add(weight, ordering: .relaxed)
        defer { slowWork.subtract(weight, ordering: .relaxed) }
        guard admitted <= maxSlowWork else {
            throw Problem(
                .serviceUnavailable, "Busy", "too many sign-ins at once; try again in a moment",
                retryAfterSeconds: 1)
        }
        return try await NIOThreadPool.singleton.runIfActive { try work() }
    }

    /// Password work running or waiting at most, in hashes at cost 10: on two cores at about
    /// 0.25 s a hash at cost 12, the last of 32 waits about 4 s.
    static let maxSlowWork = 128
    private static let slowWork = Atomic<Int>(0)
}
