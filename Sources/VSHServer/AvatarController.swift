import Foundation
import HTTPTypes
import Hummingbird
import VSHCore
import VSHEngine
import VSHPhoto

/// Profile pictures: uploaded as a JPEG, kept re-encoded without any metadata, served to anyone.
struct AvatarController: Sendable {
    let store: any LeagueStore
    let photos: any PhotoStore
    let authentication: Authentication
    /// A private folder (0700) for uploads in progress.
    let uploads: String
    let limiter: RateLimiter
    let limits: RateLimits

    static let put = Endpoint(.put, "/v1/me/avatar")
    static let get = Endpoint(.get, "/v1/players/{username}/avatar")
    static var endpoints: [Endpoint] { [put, get] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.put, use: put)
        router.on(Self.get, use: get)
    }

    /// PUT /v1/me/avatar (a JPEG or HEIC body) → 204. The picture is decoded within the decoders'
    /// budgets, turned upright, cropped square, scaled to 256 pixels and encoded anew: no EXIF, no
    /// GPS leaves the server. What the bytes are decides, never the `Content-Type` header.
    @Sendable func put(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        try Self.requireImageType(request)
        try await limiter.take("avatar|\(session.player.id)", limits.avatarsPerPlayer)
        let picture = try await Self.picture(in: request, folder: uploads) { bytes in
            try Avatar.make(from: bytes, folder: uploads)
        }
        let key = try await photos.put(picture, sha256: SHA256.hex(picture))
        try await store.setAvatar(key, player: session.player.id)
        return Response(status: .noContent)
    }

    /// GET /v1/players/{username}/avatar → the picture (`image/jpeg`), or 404.
    @Sendable func get(_ request: Request, context: VSHRequestContext) async throws -> Response {
        // Path parameters arrive percent-encoded ("Ann%20Lee").
        let raw = context.parameters.get("username") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard let player = try await store.player(named: name),
            let key = try await store.avatar(player: player.id),
            let bytes = try await photos.get(key)
        else {
            throw Problem(.notFound, "Not found", "no picture for this player")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/jpeg", .cacheControl: "public, max-age=300",
                .eTag: "\"\(key.split(separator: "/").last?.prefix(16) ?? "")\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Refuses a body that is not declared as an image (415).
    static func requireImageType(_ request: Request) throws {
        let type = (request.headers[.contentType] ?? "").lowercased()
        guard type.hasPrefix("image/") else {
            throw Problem(.unsupportedMediaType, "Unsupported media type", "send the picture as image/jpeg")
        }
    }

    /// A phone's picture in the request's body (a JPEG or HEIC photo, within the photo size limit)
    /// drawn anew by `draw`: 415 for what is not a photo, 422 for a photo that cannot be decoded.
    static func picture(
        in request: Request, folder: String, draw: ([UInt8]) throws -> [UInt8]
    ) async throws -> [UInt8] {
        try requireImageType(request)
        let bytes = try await body(of: request, limit: PhotoReader.maxFileBytes, folder: folder)
        guard PhotoDecoder.isPhoto(bytes) else {
            throw Problem(
                .unsupportedMediaType, "Unsupported media type",
                "the picture is neither a JPEG nor a HEIC photo")
        }
        do {
            return try draw(bytes)
        } catch {
            throw Problem(.unprocessableContent, "Unreadable picture", "the picture cannot be read: \(error)")
        }
    }

    /// A request body streamed to a private temporary file under `limit` bytes (413 past it), read back.
    static func body(of request: Request, limit: Int, folder: String) async throws -> [UInt8] {
        let path = folder + "/upload-\(UUID().uuidString)"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Problem(.internalServerError, "Internal error", "the upload cannot be stored")
        }
        defer { unlink(path) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var size = 0
        for try await chunk in request.body {
            size += chunk.readableBytes
            guard size <= limit else {
                try? handle.close()
                throw Problem(.contentTooLarge, "Too large", "the picture is over \(limit / 1_048_576) MiB")
            }
            handle.write(Data(chunk.readableBytesView))
        }
        try? handle.close()
        guard size > 0 else { throw Problem(.unprocessableContent, "Missing picture", "the body is empty") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(.internalServerError, "Internal error", "the upload could not be read back")
        }
        return [UInt8](data)
    }
}
