import Foundation
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
        // Tenths of a millisecond, by integer arithmetic (Foundation's String(format:) was a
        // twentieth of a cached read's cost).
        let tenths = Int(((ContinuousClock.now - start) / .microseconds(100)).rounded())
        ServiceMetrics.request(
            method: request.method.rawValue, route: context.endpointPath ?? "(no route)",
            status: Int(response.status.code), duration: ContinuousClock.now - start)
        if structured {
            context.logger.info(
                "request",
                metadata: [
                    "client": "\(context.clientAddress)", "method": "\(request.method)",
                    "route": "\(context.endpointPath ?? "(no route)")", "status": "\(response.status.code)",
                    "duration_ms": "\(tenths / 10).\(tenths % 10)",
                ])
        } else {
            context.logger.info(
                "\(context.clientAddress) \(request.method) \(context.endpointPath ?? "(no route)") \(response.status.code) \(tenths / 10).\(tenths % 10) ms"
            )
        }
        return response
    }
}
