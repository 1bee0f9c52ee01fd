import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A refused upload is answered at once and its connection closed: a body over its route's cap
/// (declared by `Content-Length`) gets 413 before a byte of it is read, and any error answer to a
/// request whose body may not have been read (over 1 MiB declared, or of unknown length) says
/// `Connection: close` and closes the connection once it is written. A client that reads while it
/// sends (curl, browsers) sees the answer; one that sends everything first (Python's urllib, many
/// phone stacks) sees it or a reset within a second, instead of waiting for its own timeout with
/// the rest of its body unread by a server that has stopped reading.
struct UnreadBodyMiddleware: RouterMiddleware {
    /// Photo uploads' cap (`CheckInsController`, `AvatarController`) and the multipart framing around it.
    static let uploadCap = 64 * 1_048_576 + 65_536
    /// Bodies up to this size are read with the request anyway: no reason to drop the connection.
    static let smallBody = 1_048_576

    func handle(
        _ request: Request, context: VSHRequestContext,
        next: (Request, VSHRequestContext) async throws -> Response
    ) async throws -> Response {
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        let unknownLength = request.headers[.transferEncoding] != nil
        let path = request.uri.path
        let isUpload =
            (request.method == .post && path == "/v1/checkins")
            || (request.method == .put && path == "/v1/me/avatar")
            || (request.method == .put && path.hasPrefix("/v1/hunts/") && path.hasSuffix("/image"))
        // A hunt file (the organisers' console) is up to its own limit.
        let isHuntFile =
            (request.method == .post && path == "/v1/hunts")
            || (request.method == .put && path.hasPrefix("/v1/hunts/") && path.hasSuffix("/draft"))
        let cap = isUpload ? Self.uploadCap : isHuntFile ? OrganiserController.maxBody : context.maxUploadSize
        if let declared, declared > cap {
            let what =
                isUpload
                ? "the upload is over 64 MiB"
                : isHuntFile
                    ? "a hunt file is at most \(cap) bytes"
                    : "the body is over \(context.maxUploadSize) bytes"
            return closing(
                Problem(.contentTooLarge, "Too large", what).response, context: context)
        }
        let response = try await next(request, context)
        guard response.status.code >= 400, unknownLength || (declared ?? 0) > Self.smallBody else {
            return response
        }
        return closing(response, context: context)
    }

    /// The response with `Connection: close`, closing the connection once its body is written.
    private func closing(_ response: Response, context: VSHRequestContext) -> Response {
        var response = response
        response.headers[.connection] = "close"
        guard let channel = context.channel else { return response }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            // The answer is handed to the socket; what the client still sends is not read.
            channel.close(mode: .all, promise: nil)
        }
        return response
    }
}
