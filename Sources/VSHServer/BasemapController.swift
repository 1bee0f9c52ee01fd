import Foundation
import HTTPTypes
import Hummingbird
import VSHAuthoring

/// The organiser's base layer (`vsh-master basemap import`): `basemap.json` of the hunts folder,
/// the streets, footpaths, buildings and water vsh's own maps draw under the stops.
struct BasemapController: Sendable {
    let huntsFolder: String?

    static let basemap = Endpoint(.get, "/v1/basemap")
    static var endpoints: [Endpoint] { [basemap] }

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.basemap, use: basemap)
    }

    /// GET /v1/basemap → the GeoJSON FeatureCollection; an empty one when the hunts folder has none
    /// (every map asks, and a missing base layer is no error).
    @Sendable func basemap(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let none = Response(
            status: .ok,
            headers: [.contentType: "application/geo+json", .cacheControl: "public, max-age=60"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"type":"FeatureCollection","features":[]}"#))
        )
        guard let huntsFolder else { return none }
        let path = huntsFolder + "/" + Basemap.fileName
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= Basemap.maxFileBytes
        else { return none }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let etag = "\"basemap-\(size)-\(Int(modified * 1000))\""
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        guard let data = FileManager.default.contents(atPath: path) else { return none }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/geo+json", .eTag: etag, .cacheControl: "public, max-age=60",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
