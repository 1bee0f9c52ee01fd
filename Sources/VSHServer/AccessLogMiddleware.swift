import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line a request: the client's address as decided (`ClientAddress`), method, the route's
/// template (never the path as sent, which may carry names), status and duration. Never a body, a
/// header, a token or a query string.
struct AccessLogMiddleware: RouterMiddleware {
    /// The fields as metadata of a "request" entry (`--log-format json`) rather than in the text.
    var structured = false

    func handle(
        _ request: Request, context: VSHRequestContext,
        next: (Request, VSHRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        Self.record(
            context.logger, structured: structured, client: context.clientAddress, method: request.method,
            route: context.endpointPath, status: response.status, duration: ContinuousClock.now - start)
        return response
    }

    /// The request's metrics and its log line, for the router's answers and the early ones
    /// (`EarlyAnswers`) alike.
    static func record(
        _ logger: Logger, structured: Bool, client: String, method: HTTPRequest.Method, route: String?,
        status: HTTPResponse.Status, duration: Duration
    ) {
        // Tenths of a millisecond, by integer arithmetic (Foundation's String(format:) was a
        // twentieth of a cached read's cost).
        let tenths = Int((duration / .microseconds(100)).rounded())
        ServiceMetrics.request(
            method: method.rawValue, route: route ?? "(no route)", status: Int(status.code),
            duration: duration)
        if structured {
            logger.info(
                "request",
                metadata: [
                    "client": "\(client)", "method": "\(method)", "route": "\(route ?? "(no route)")",
                    "status": "\(status.code)", "duration_ms": "\(tenths / 10).\(tenths % 10)",
                ])
        } else {
            logger.info(
                "\(client) \(method) \(route ?? "(no route)") \(status.code) \(tenths / 10).\(tenths % 10) ms"
            )
        }
    }
}
