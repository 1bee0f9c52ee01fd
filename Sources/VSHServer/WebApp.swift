import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import VSHCore

/// The players' and organisers' web app: plain HTML, CSS and JavaScript modules from the
/// repository (`Sources/VSHServer/Web`), served by vsh itself at the pages' own URLs (README, "The web
/// app"). Every page URL answers the same shell; its scripts read the `/v1` API and draw the page.
/// The share page of a finished hunt is drawn here, so that a chat's link preview (which runs no
/// script) finds its Open Graph tags.
struct WebApp: Sendable {
    /// A file kept in memory: the app is about 100 KB.
    struct Asset: Sendable {
        var bytes: ByteBuffer
        var contentType: String
        var etag: String
    }

    let assets: [String: Asset]
    let store: any LeagueStore
    let configuration: WebConfiguration
    let publicURL: @Sendable () -> String

    /// The page URLs (each answers the app's shell).
    static let pages = [
        "/", "/signup", "/signin", "/reset-password", "/hunts/:id", "/stops/:id", "/leaderboard",
        "/players/:username", "/me",
        "/review", "/organise", "/organise/:id", "/join/:code", "/board/:hunt", "/teams/:team", "/live",
        "/display/:stop",
    ]

    init(configuration: WebConfiguration, store: any LeagueStore, publicURL: @escaping @Sendable () -> String)
    {
        self.configuration = configuration
        self.store = store
        self.publicURL = publicURL
        var assets: [String: Asset] = [:]
        if let folder = configuration.folder ?? Self.installedFolder() {
            assets.merge(Self.load(folder, prefix: "/app/"), uniquingKeysWith: { a, _ in a })
        }
        if configuration.tiles != nil, let leaflet = configuration.leafletFolder {
            for name in ["leaflet.esm.min.js", "leaflet.css"] {
                if let asset = Self.asset(leaflet + "/" + name) { assets["/vendor/leaflet/" + name] = asset }
            }
            assets.merge(
                Self.load(leaflet + "/images", prefix: "/vendor/leaflet/images/"),
                uniquingKeysWith: { a, _ in a })
            if let data = FileManager.default.contents(atPath: configuration.leafletLicence) {
                let bytes = [UInt8](data)
                assets["/vendor/leaflet/LICENSE.txt"] = Asset(
                    bytes: ByteBuffer(bytes: bytes), contentType: "text/plain; charset=utf-8",
                    etag: "\"\(SHA256.hex(bytes).prefix(16))\"")
            }
        }
        let config = JSONValue.object([
            "tiles": .optional(configuration.tiles), "attribution": .optional(configuration.attribution),
            "title": .string(configuration.title),
        ]).compactText
        assets["/app/config.json"] = Asset(
            bytes: ByteBuffer(string: config), contentType: "application/json",
            etag: "\"\(SHA256.hex(Array(config.utf8)).prefix(16))\"")
        self.assets = assets
    }

    /// The web folder beside the executable (SwiftPM's resource bundle), else in the source tree.
    static func installedFolder() -> String? {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["VSH_WEB"],
            executable.deletingLastPathComponent().appendingPathComponent("vsh_VSHServer.resources/Web").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Web").path,
        ]
        return candidates.compactMap { $0 }.first {
            FileManager.default.fileExists(atPath: $0 + "/index.html")
        }
    }

    static let types = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "json": "application/json", "webmanifest": "application/manifest+json",
        "txt": "text/plain; charset=utf-8",
        "ico": "image/x-icon",
    ]

    static func asset(_ path: String) -> Asset? {
        let ext = (path as NSString).pathExtension.lowercased()
        guard let type = types[ext], let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        return Asset(
            bytes: ByteBuffer(bytes: bytes), contentType: type, etag: "\"\(SHA256.hex(bytes).prefix(16))\"")
    }

    /// Every servable file under `folder`, keyed by `prefix` + its relative path.
    static func load(_ folder: String, prefix: String) -> [String: Asset] {
        var found: [String: Asset] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return found }
        while let relative = walker.nextObject() as? String {
            if let asset = asset(folder + "/" + relative) { found[prefix + relative] = asset }
        }
        return found
    }

    /// What every page answer carries: no script, style or connection beyond this origin (and the
    /// operator's tile server for images), no framing, no sniffing.
    var pageHeaders: HTTPFields {
        var images = "'self' blob: data:"
        if let tiles = configuration.tiles, let origin = WebConfiguration.origin(of: tiles) {
            images += " " + origin
        }
        return [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
            HTTPField.Name("Content-Security-Policy")!:
                "default-src 'self'; img-src \(images); script-src 'self'; style-src 'self'; connect-src 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
    }

    func add(to router: Router<VSHRequestContext>) {
        for page in Self.pages {
            router.get(RouterPath(page)) { request, _ in try self.shell(request) }
        }
        router.get("/app/**") { request, _ in try self.file(request) }
        router.get("/vendor/leaflet/**") { request, _ in try self.file(request) }
        router.get("/share/:username/:hunt") { request, context in try await self.share(request, context) }
        // The service worker, at the root so that it may serve every page of the app.
        router.get("/sw.js") { request, _ in
            guard let worker = self.assets["/app/sw.js"] else {
                throw Problem(.notFound, "Not found", "no worker")
            }
            if request.headers[.ifNoneMatch] == worker.etag {
                return Response(status: .notModified, headers: [.eTag: worker.etag])
            }
            return Response(
                status: .ok,
                headers: [.contentType: worker.contentType, .cacheControl: "no-cache", .eTag: worker.etag],
                body: ResponseBody(byteBuffer: worker.bytes))
        }
        router.get("/favicon.ico") { request, _ in
            guard var icon = self.assets["/app/icon.svg"] else {
                throw Problem(.notFound, "Not found", "no icon")
            }
            icon.contentType = "image/svg+xml"
            return Response(
                status: .ok,
                headers: [.contentType: icon.contentType, .cacheControl: "public, max-age=86400"],
                body: ResponseBody(byteBuffer: icon.bytes))
        }
    }

    /// Whether a request that found no route is a person's browser asking for a page: it then gets
    /// the app's shell with status 404, which says "Not found" in the app's own words and frame.
    static func isPage(_ request: Request) -> Bool {
        let path = request.uri.path
        return request.method == .get && (request.headers[.accept] ?? "").contains("text/html")
            && !["/v1/", "/app/", "/vendor/", "/share/"].contains(where: path.hasPrefix)
    }

    func shell(_ request: Request, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let page = assets["/app/index.html"] else {
            throw Problem(
                .serviceUnavailable, "No web app", "the web app's files are not installed beside vsh")
        }
        var headers = pageHeaders
        headers[.eTag] = page.etag
        if status == .ok, request.headers[.ifNoneMatch] == page.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: page.bytes))
    }

    func file(_ request: Request) throws -> Response {
        guard let asset = assets[request.uri.path] else {
            throw Problem(.notFound, "Not found", "no file \(request.uri.path.prefix(100))")
        }
        var headers: HTTPFields = [
            .contentType: asset.contentType, .cacheControl: "no-cache", .eTag: asset.etag,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        if asset.contentType.hasPrefix("text/html") { headers.append(contentsOf: pageHeaders) }
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.bytes))
    }

    /// GET /share/{username}/{hunt}: a finished hunt's public page, with the player's collage and
    /// the Open Graph tags a chat reads for its link preview.
    func share(_ request: Request, _ context: VSHRequestContext) async throws -> Response {
        let rawName = try context.parameters.require("username")
        let name = rawName.removingPercentEncoding ?? rawName
        let huntID = try context.parameters.require("hunt")
        let notFound = Problem(.notFound, "Not found", "no finished hunt to share here")
        guard Slug.isValid(huntID), let player = try await store.player(named: name),
            let hunt = try await store.hunt(id: huntID)?.hunt
        else { throw notFound }
        let profile = try await store.profile(player: player.id, recent: 0)
        guard let done = profile.hunts.first(where: { $0.huntID == huntID }), let completed = done.completedAt
        else { throw notFound }
        let base = publicURL()
        let encodedName = PathSegment.encode(player.name)
        let image = "\(base)/v1/players/\(encodedName)/hunts/\(huntID)/collage"
        let url = "\(base)/share/\(encodedName)/\(huntID)"
        let title = "\(player.name) completed \(hunt.name)"
        // The day on the hunt's clock: an evening finish in Las Vegas is already tomorrow in UTC.
        let day = HuntClock(hunts: [hunt]).day(completed, hunt: hunt.id)
        let site = configuration.title
        let summary = "\(done.total) stops of \(hunt.name) visited, finished on \(day). Play it too: \(site)."
        // The page is a file of the web app (Web/share.html), its `{{values}}` escaped.
        guard let template = assets["/app/share.html"] else {
            throw Problem(
                .serviceUnavailable, "No web app", "the web app's files are not installed beside vsh")
        }
        let alt = "The photos \(player.name) took at each stop of \(hunt.name)"
        let page = Self.fill(
            String(buffer: template.bytes),
            [
                "title": title, "site": site, "summary": summary, "image": image, "alt": alt, "url": url,
                "hunt_id": huntID, "hunt": hunt.name, "player_path": encodedName, "player": player.name,
            ])
        return Response(
            status: .ok, headers: pageHeaders, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }
}

/// Answers a browser's request for an unknown page with the app's shell and status 404.
struct PageNotFoundMiddleware: RouterMiddleware {
    let app: WebApp

    func handle(
        _ request: Request, context: VSHRequestContext,
        next: (Request, VSHRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && WebApp.isPage(request) {
            return try app.shell(request, status: .notFound)
        }
    }
}

/// How the web app is set up: where its files are, and the operator's street tiles.
public struct WebConfiguration: Sendable {
    /// The app's files; nil: beside the executable, else in the source tree.
    public var folder: String?
    /// A tile URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`); nil: vsh's own SVG map.
    public var tiles: String?
    /// The tiles' attribution as the tile server asks for it.
    public var attribution: String?
    /// Leaflet's installed files (Debian's libjs-leaflet).
    public var leafletFolder: String? = "/usr/share/javascript/leaflet"
    /// Leaflet's licence, served beside it.
    public var leafletLicence = "/usr/share/doc/libjs-leaflet/copyright"

    /// The event's name: the app's title and its share pages' ("Trafalgar Trail").
    public var title = "vsh hunts"

    /// The default: the app's own files, no tiles.
    public init() {}

    /// Why a title cannot be used (1 to 60 characters, no control characters), or nil.
    public static func titleProblem(_ title: String) -> String? {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "is empty" }
        if trimmed.count > 60 { return "is \(trimmed.count) characters long; at most 60" }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character"
        }
        return nil
    }

    /// `scheme://host[:port]` of a URL template, or nil when it has none.
    public static func origin(of template: String) -> String? {
        let cleaned = template.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
        guard let url = URLComponents(string: cleaned), let scheme = url.scheme,
            ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Whether a tile template is usable: http(s) with `{z}`, `{x}` and `{y}`.
    public static func isValidTemplate(_ template: String) -> Bool {
        origin(of: template) != nil && ["{z}", "{x}", "{y}"].allSatisfy(template.contains)
    }
}

extension WebApp {
    /// A page template with each `{{name}}` replaced by its value, escaped, in one pass (a value
    /// holding braces is never read as a name); an unknown name is left as it is. A section
    /// `{{#name}}…{{/name}}` is repeated once for each item of `sections[name]` (none: removed),
    /// its own names filled from the item first, then from `values`.
    static func fill(
        _ template: String, _ values: [String: String], sections: [String: [[String: String]]] = [:]
    ) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = String(rest[open.upperBound..<close.lowerBound])
            if name.hasPrefix("#"), let end = rest[close.upperBound...].range(of: "{{/\(name.dropFirst())}}")
            {
                let body = String(rest[close.upperBound..<end.lowerBound])
                for item in sections[String(name.dropFirst())] ?? [] {
                    out += fill(body, values.merging(item) { _, own in own }, sections: sections)
                }
                rest = rest[end.upperBound...]
                continue
            }
            out += values[name].map(HTMLText.escape) ?? "{{\(name)}}"
            rest = rest[close.upperBound...]
        }
        return out + rest
    }
}

/// Text made safe inside HTML elements and quoted attributes (the core's one escaper).
enum HTMLText {
    static func escape(_ text: String) -> String { Markup.escaped(text) }
}
