import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VSHCore
import VSHEngine
import VSHPhoto

/// Pictures made from check-in photos for the web app: a check-in's photo for its player and for
/// moderators, and a finished hunt's collage for anyone (the share page shows it). Both are drawn
/// anew from decoded pixels: no EXIF, GPS or camera data of the original ever leaves the server.
struct PicturesController: Sendable {
    let store: any LeagueStore
    let photos: any PhotoStore
    let authentication: Authentication
    /// A private folder for the encoder's temporary files.
    let folder: String
    /// Thumbnails and collages already drawn.
    let cache: PictureCache

    /// The side of a check-in photo's square picture, in pixels.
    static let side = 480
    /// The side of a thumbnail (`?size=thumb`).
    static let thumbnailSide = 160

    static let checkInPhoto = Endpoint(.get, "/v1/checkins/{id}/photo")
    static let collage = Endpoint(.get, "/v1/players/{username}/hunts/{hunt}/collage")
    static let huntImage = Endpoint(.get, "/v1/hunts/{id}/image")
    static let stopImage = Endpoint(.get, "/v1/stops/{id}/image")
    static var endpoints: [Endpoint] { [checkInPhoto, collage, huntImage, stopImage] }

    /// The hunts folder the images of hunt files are relative to; nil: no images.
    var huntsFolder: String?

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.checkInPhoto, use: checkInPhoto)
        router.on(Self.collage, use: collage)
        router.on(Self.huntImage) { request, context in
            let id = try context.parameters.require("id")
            var hunt = Slug.isValid(id) ? try await store.hunt(id: id)?.hunt : nil
            if let found = hunt, try await !access.canSee(found, request) { hunt = nil }
            return try await image(
                hunt?.image, of: "hunt \"\(id.prefix(64))\"", shared: hunt?.visibility != .private)
        }
        router.on(Self.stopImage) { request, context in
            let id = try context.parameters.require("id")
            var found: String?
            var shared = true
            if Slug.isValid(id) {
                for stored in try await store.hunts() {
                    if let stop = stored.hunt.stops.first(where: { $0.id == id }) {
                        if try await access.canSee(stored.hunt, request) { found = stop.image }
                        shared = stored.hunt.visibility != .private
                        break
                    }
                }
            }
            return try await image(found, of: "stop \"\(id.prefix(64))\"", shared: shared)
        }
    }

    /// Who may see which hunts: a private hunt's pictures are for its players (sent with their
    /// token, as the web app fetches them) and its organisers; to anyone else it has none (404).
    var access: HuntAccess { HuntAccess(store: store, clock: authentication.clock) }

    /// The longest side of a served hunt or stop image, in pixels.
    static let imageSide = 1024
    /// The largest image file served.
    static let maxImageBytes = 16 * 1_048_576

    /// An image a hunt file names, from the hunts folder: a JPEG drawn anew without metadata (at
    /// most 1024 px), a PNG, WebP or GIF as it is. Never a file outside the folder. A private
    /// hunt's (`shared` false) are cached by the browser only, never by a proxy.
    func image(_ relative: String?, of owner: String, shared: Bool = true) async throws -> Response {
        let missing = Problem(.notFound, "Not found", "no image for \(owner)")
        // A picture uploaded in the organisers' console: in the photo store, drawn anew already.
        // (Exported with the hunts, it is a file of the hunts folder too: looked for there when the
        // league's store does not have it.)
        if let relative, let sha = Self.uploadedPicture(relative),
            let original = try await photos.get(type(of: photos).key(sha256: sha))
        {
            // Drawn anew here too (once, then cached): whatever a name points at in the store, what is
            // served has no metadata.
            let bytes = try await cache.picture("picture|\(sha)") { try redrawn(original, of: owner) }
            return Self.imageResponse(bytes, type: "image/jpeg", maxAge: 86400, shared: shared)
        }
        guard let relative, let huntsFolder else { throw missing }
        let root = URL(fileURLWithPath: huntsFolder).resolvingSymlinksInPath().standardizedFileURL.path
        let file = URL(fileURLWithPath: relative, relativeTo: URL(fileURLWithPath: root + "/"))
            .resolvingSymlinksInPath().standardizedFileURL.path
        let types = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp",
            "gif": "image/gif",
        ]
        guard file.hasPrefix(root + "/"), let type = types[(file as NSString).pathExtension.lowercased()],
            let attributes = try? FileManager.default.attributesOfItem(atPath: file),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= Self.maxImageBytes,
            let data = FileManager.default.contents(atPath: file)
        else { throw missing }
        let bytes = type == "image/jpeg" ? try redrawn([UInt8](data), of: owner) : [UInt8](data)
        return Self.imageResponse(bytes, type: type, maxAge: 3600, shared: shared)
    }

    /// A JPEG drawn anew without metadata, at most `imageSide` pixels; 422 when it cannot be decoded.
    private func redrawn(_ bytes: [UInt8], of owner: String) throws -> [UInt8] {
        do {
            return try Avatar.fitted(from: bytes, folder: folder, longest: Self.imageSide)
        } catch {
            throw Problem(
                .unprocessableContent, "Unreadable image", "the image of \(owner) cannot be decoded")
        }
    }

    /// An image answered in a sandbox (nothing in it can run), cached for `maxAge` seconds.
    private static func imageResponse(_ bytes: [UInt8], type: String, maxAge: Int, shared: Bool) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "\(shared ? "public" : "private"), max-age=\(maxAge)",
                HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; sandbox",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The SHA-256 of `pictures/<sha256>.jpg`, the name of a picture uploaded in the console.
    static func uploadedPicture(_ name: String) -> String? {
        guard name.hasPrefix("pictures/"), name.hasSuffix(".jpg") else { return nil }
        let sha = name.dropFirst("pictures/".count).dropLast(4)
        guard sha.count == 64, sha.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return String(sha)
    }

    /// GET /v1/checkins/{id}/photo → the photo, upright and square (480 px), for its player or a
    /// moderator; 404 for anyone else, as for a check-in that does not exist.
    @Sendable func checkInPhoto(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let access = HuntAccess(store: store, clock: authentication.clock)
        let session = try await access.viewer(request)
        let raw = try context.parameters.require("id")
        let missing = Problem(.notFound, "Not found", "no photo for check-in \"\(raw.prefix(20))\"")
        guard let id = Int64(raw), id > 0, let record = try await store.photo(ofCheckIn: id),
            let key = record.photoFile
        else { throw missing }
        // The player's own and any for moderators; a featured photo that counts, for whoever may
        // see its hunt (the projector board).
        if !(record.playerID == session?.player.id || session?.role.mayModerate == true) {
            guard let item = try await store.feedItem(id), item.featured, item.state.counts,
                let huntID = item.huntID, let hunt = try await store.hunt(id: huntID)?.hunt,
                try await access.canSee(hunt, request)
            else {
                if session == nil { _ = try await authentication.require(request) }
                throw missing
            }
        }
        // `?size=thumb`: a thumbnail for the moderators' live feed.
        let side = request.uri.queryParameters.get("size") == "thumb" ? Self.thumbnailSide : Self.side
        let picture = try await cache.picture("photo|\(side)|\(key)") {
            guard let bytes = try await photos.get(key) else { throw missing }
            do {
                return try Avatar.make(from: bytes, folder: folder, side: side)
            } catch {
                throw Problem(.unprocessableContent, "Unreadable photo", "the stored photo cannot be decoded")
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: picture)))
    }

    /// GET /v1/players/{username}/hunts/{hunt}/collage → the collage of a hunt the player completed
    /// (the share page's picture); 404 until the hunt is complete.
    @Sendable func collage(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let rawName = try context.parameters.require("username")
        let name = rawName.removingPercentEncoding ?? rawName
        let hunt = try context.parameters.require("hunt")
        let missing = Problem(
            .notFound, "Not found", "no finished hunt \"\(hunt.prefix(64))\" for this player")
        guard Slug.isValid(hunt), let player = try await store.player(named: name) else { throw missing }
        let profile = try await store.profile(player: player.id, recent: 0)
        guard profile.hunts.contains(where: { $0.huntID == hunt && $0.completedAt != nil }) else {
            throw missing
        }
        let plan = try await store.collagePlan(player: player.id, hunt: hunt)
        let picture = try await cache.picture("collage|\(Collage.key(player: player, plan: plan))") {
            try Avatar.encode(
                try await Collage.make(player: player, plan: plan, photos: photos).image, folder: folder)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "image/jpeg", .cacheControl: "public, max-age=300"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: picture)))
    }
}
