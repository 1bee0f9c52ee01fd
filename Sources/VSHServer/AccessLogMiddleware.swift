import Foundation
import Hummingbird
import Logging

/// One log line a request: method, the route's template (never the path as sent, which may carry
/// names), status and duration. Never a body, a header, a token or a query string.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let milliseconds = (ContinuousClock.now - start) / .milliseconds(1)
        context.logger.info(
            "\(request.method) \(context.endpointPath ?? "(no route)") \(response.status.code) \(String(format: "%.1f", milliseconds)) ms"
        )
        return response
    }
}
