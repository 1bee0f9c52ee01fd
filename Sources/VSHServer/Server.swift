import Foundation
public import Hummingbird
import Logging
import VSHCore
import VSHEngine

/// Builds the service from values (STYLE.md 16): the router, one middleware that turns errors into
/// `application/problem+json`, and one controller a resource, each given its dependencies.
/// - Parameters:
///   - configuration: the store, photos, clock, address.
///   - onListening: called once the server accepts connections, with the port it listens on.
public func buildApplication(
    _ configuration: ServerConfiguration, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    try? FileManager.default.createDirectory(
        atPath: configuration.uploadFolder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    let router = Router(context: VSHRequestContext.self)
    router.middlewares.add(AccessLogMiddleware())
    router.middlewares.add(ProblemMiddleware())
    let authentication = Authentication(store: configuration.store, clock: configuration.clock)
    let limiter = RateLimiter()
    LeagueController(store: configuration.store).add(to: router)
    AccountsController(
        store: configuration.store, authentication: authentication, clock: configuration.clock,
        sessionSeconds: configuration.sessionSeconds, limiter: limiter, limits: configuration.limits
    ).add(to: router)
    CheckInsController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        clock: configuration.clock, uploads: configuration.uploadFolder, limiter: limiter,
        limits: configuration.limits, group: GroupCommit(store: configuration.store)
    ).add(to: router)
    AvatarController(
        store: configuration.store, photos: configuration.photos, authentication: authentication,
        uploads: configuration.uploadFolder
    ).add(to: router)
    ReviewsController(store: configuration.store, authentication: authentication, clock: configuration.clock)
        .add(to: router)
    OpenAPIDocument.add(to: router)
    var logger = Logger(label: "vsh")
    logger.logLevel = .info
    return Application(
        router: router,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "vsh"),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// Runs the service until SIGTERM or SIGINT, then stops accepting, finishes what is in flight and returns.
public func serve(
    _ configuration: ServerConfiguration, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws {
    defer { try? FileManager.default.removeItem(atPath: configuration.uploadFolder) }
    try await buildApplication(configuration, onListening: onListening).runService()
}
