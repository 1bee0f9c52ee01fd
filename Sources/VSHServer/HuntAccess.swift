import Foundation
import Hummingbird
import VSHAccounts
import VSHCore

/// Who may see which hunts: a public hunt everyone; a private one the players who joined it with its
/// code, and the league's organisers and moderators. To anyone else a private hunt does not exist
/// (404, and never in a list).
struct HuntAccess: Sendable {
    let store: any LeagueStore
    let clock: @Sendable () -> Date

    /// The request's session when it carries a valid token; nil otherwise (a read works without).
    func viewer(_ request: Request) async throws -> Session? {
        guard let token = Authentication.bearerToken(request) else { return nil }
        return try await store.session(tokenHash: SessionTokens.hash(token), at: clock())
    }

    /// The ids of the private hunts among `hunts` the request's viewer may see.
    func privateHuntsSeen(among hunts: [Hunt], _ request: Request) async throws -> Set<String> {
        let closed = Set(hunts.filter { $0.visibility == .private }.map(\.id))
        guard !closed.isEmpty, let session = try await viewer(request) else { return [] }
        if session.role == .organiser || session.role == .moderator { return closed }
        return try await store.joinedHunts(player: session.player.id).intersection(closed)
    }

    /// Whether the request's viewer may see `hunt`.
    func canSee(_ hunt: Hunt, _ request: Request) async throws -> Bool {
        guard hunt.visibility == .private else { return true }
        return try await privateHuntsSeen(among: [hunt], request).contains(hunt.id)
    }

    /// The hunt `id` when the viewer may see it, else the unknown-hunt error (404) naming only
    /// the hunts they may see.
    func require(_ id: String, in reads: any LeagueStore, _ request: Request) async throws -> StoredHunt {
        let all = try await reads.hunts()
        let seen = try await privateHuntsSeen(among: all.map(\.hunt), request)
        let visible = all.filter { $0.hunt.visibility == .public || seen.contains($0.hunt.id) }
        guard let found = visible.first(where: { $0.hunt.id == id }) else {
            throw LeagueError.unknownHunt(id: id, known: visible.map(\.hunt.id))
        }
        return found
    }
}
