import HTTPTypes
import Hummingbird

/// Cross-origin requests, only from the origins the operator names (`--allow-origin`, exact
/// matches such as `https://hunt.example.org`). Other origins get no CORS headers, so browsers
/// keep their pages from reading the answers; without `--allow-origin` there is no CORS at all.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    static var allowedHeaders: String { "Authorization, Content-Type, Idempotency-Key" }
    static var allowedMethods: String { "GET, POST, PUT, PATCH, DELETE" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let origin = request.headers[.origin], origins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin, .accessControlAllowMethods: Self.allowedMethods,
                    .accessControlAllowHeaders: Self.allowedHeaders, .accessControlMaxAge: "600",
                    .vary: "Origin",
                ])
        }
        // Inside it, ProblemMiddleware has made every error a response: problems get the headers too.
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = "Retry-After, Idempotent-Replayed"
        response.headers[.vary] = "Origin"
        return response
    }
}
