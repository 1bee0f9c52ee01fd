import Foundation
import Hummingbird
import VSHCore

/// Announcements: an organiser's message that every open page shows at once (`event: announcement`
/// on `GET /v1/events`) and that stays listed.
struct AnnouncementsController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    let events: LeagueEvents

    static let make = Endpoint(.post, "/v1/announcements")
    static let list = Endpoint(.get, "/v1/announcements")
    static var endpoints: [Endpoint] { [make, list] }
    /// How many a list holds.
    static let listed = 20

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.make, use: make)
        router.on(Self.list, use: list)
    }

    static func json(_ announcement: Announcement) -> JSONValue {
        .object([
            "id": .int(Int(announcement.id)), "hunt": .optional(announcement.huntID),
            "text": .string(announcement.text), "by": .string(announcement.by),
            "at": .string(RFC3339.format(announcement.at)),
        ])
    }

    /// POST /v1/announcements `{hunt?, text}` (organisers) → 201 with the announcement; every open
    /// page is told at once.
    @Sendable func make(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.requireOrganiser(request, to: "make announcements")
        let body = try await JSONBodies.object(
            request, context: context, required: ["text"], optional: ["hunt"])
        guard let raw = try JSONBodies.string(body, "text") else {
            throw Problem(.unprocessableContent, "Invalid field", "\"text\" must be a string")
        }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= Announcement.maxLength else {
            throw Problem(
                .unprocessableContent, "Invalid field",
                "\"text\" must be 1 to \(Announcement.maxLength) characters (it has \(text.count))")
        }
        if let problem = DisplayText.problem(in: text, multiline: true) {
            throw Problem(.unprocessableContent, "Invalid field", "\"text\" \(problem)")
        }
        var huntID: String?
        if body["hunt"] != nil, body["hunt"] != .null {
            guard let id = try JSONBodies.string(body, "hunt"), try await store.hunt(id: id) != nil else {
                throw Problem(.unprocessableContent, "Invalid field", "\"hunt\" names no hunt")
            }
            huntID = id
        }
        let made = try await store.announce(text: text, huntID: huntID, by: session.player.name, at: clock())
        events.announce(made.id)
        return JSONBodies.response(Self.json(made), status: .created)
    }

    /// GET /v1/announcements → the latest (newest first): the league's, and those of the hunts the
    /// viewer may see (a private hunt's for its players, moderators and organisers).
    @Sendable func list(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let all = try await store.announcements(limit: 100)
        var shown = all.filter { $0.huntID == nil }
        if all.contains(where: { $0.huntID != nil }) {
            let hunts = try await store.hunts().map(\.hunt)
            let seen = try await HuntAccess(store: store, clock: clock).privateHuntsSeen(
                among: hunts, request)
            let visible = Set(hunts.filter { $0.visibility == .public || seen.contains($0.id) }.map(\.id))
            shown = all.filter { $0.huntID.map(visible.contains) ?? true }
        }
        return JSONBodies.response(.array(shown.prefix(Self.listed).map(Self.json)))
    }
}
