public import HTTPTypes
import Hummingbird

/// One route of the service: its method and its path as the OpenAPI document writes it
/// (`/v1/hunts/{id}`). Controllers register their routes from these values, and the document is
/// tested against the same list, so the two cannot drift apart.
public struct Endpoint: Hashable, Sendable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The path, with `{name}` for a parameter.
    public var path: String

    /// An endpoint from its method and path.
    public init(_ method: HTTPRequest.Method, _ path: String) {
        self.method = method
        self.path = path
    }

    /// The path as Hummingbird's router writes it (`/v1/hunts/:id`).
    var routerPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? ":" + part.dropFirst().dropLast() : part
        }.joined(separator: "/")
    }

    /// Every endpoint the service answers.
    public static var all: [Endpoint] {
        LeagueController.endpoints + AccountsController.endpoints + AvatarController.endpoints
            + CheckInsController.endpoints
            + PasswordResetsController.endpoints + ReviewsController.endpoints + PicturesController.endpoints
            + OrganiserController.endpoints + BasemapController.endpoints + JoinsController.endpoints
            + EventController.endpoints + AnnouncementsController.endpoints + TeamsController.endpoints
            + FeedController.endpoints + PositionsController.endpoints
            + [LeagueEvents.endpoint, OpenAPIDocument.endpoint]
    }
}

extension Router {
    /// Registers `handler` for an endpoint.
    func on(
        _ endpoint: Endpoint,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        on(RouterPath(endpoint.routerPath), method: endpoint.method, use: handler)
    }
}
