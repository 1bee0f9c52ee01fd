import Foundation
import HTTPTypes
import Hummingbird
import VSHCore

/// Running an event: what the organiser takes home (the results as CSV).
struct EventController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication

    static let results = Endpoint(.get, "/v1/hunts/{id}/results.csv")
    static var endpoints: [Endpoint] { [results] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.results, use: results)
    }

    /// GET /v1/hunts/{id}/results.csv (organisers) → the hunt's results, a row a player by rank
    /// (`ResultsCSV`), as a download named after the hunt.
    @Sendable func results(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        guard session.role == .organiser else {
            throw Problem(.forbidden, "Forbidden", "only organisers may export a hunt's results")
        }
        let id = try context.parameters.require("id")
        guard let hunt = try await store.hunt(id: id)?.hunt else {
            throw LeagueError.unknownHunt(id: id, known: try await store.hunts().map(\.hunt.id))
        }
        let text = ResultsCSV.text(try await store.leaderboard(LeaderboardQuery(huntID: id)), hunt: hunt)
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8; header=present", .cacheControl: "private, no-store",
                .contentDisposition: "attachment; filename=\"\(hunt.id)-results.csv\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
