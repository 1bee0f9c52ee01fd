import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import VSHCore
import VSHPhoto
import VSHServer
import VSHSpatiaLite
import VSHTestSupport

/// The web app's side of the service: its pages and files, the pictures it shows, the share page
/// and the event stream's contract. The app itself runs in Chromium in WebAppBrowserTests.
extension ServerTests {
    func webApp(tiles: String? = nil, clock: (@Sendable () -> Date)? = nil) -> some ApplicationProtocol {
        let now = self.now
        var configuration = ServerConfiguration(
            store: store, photos: FilePhotoStore.beside(databasePath: store.path), clock: clock ?? { now })
        configuration.uploadFolder = folder.appendingPathComponent("uploads").path
        configuration.web.tiles = tiles
        configuration.web.attribution = tiles == nil ? nil : "© OpenStreetMap contributors"
        return buildApplication(configuration)
    }

    static let pageAccept: HTTPFields = [.accept: "text/html,application/xhtml+xml"]

    @Test func everyPageURLAnswersTheAppWithAStrictPolicy() async throws {
        try await webApp().test(.router) { client in
            for path in [
                "/", "/signup", "/signin", "/hunts/strip-classics", "/stops/welcome-sign", "/leaderboard",
                "/players/Ann%20Lee", "/me", "/review",
            ] {
                try await client.execute(uri: path, method: .get, headers: Self.pageAccept) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    let policy = response.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
                    #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"))
                    #expect(
                        policy.contains("img-src 'self' blob: data:;"), "no other image origin: \(policy)")
                    #expect(
                        String(buffer: response.body).contains(#"<script type="module" src="/app/app.js">"#))
                }
            }
            var etag = ""
            try await client.execute(uri: "/app/app.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                etag = response.headers[.eTag] ?? ""
            }
            try await client.execute(uri: "/app/app.js", method: .get, headers: [.ifNoneMatch: etag]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/app/config.json", method: .get) { response in
                let config = try Self.object(response)
                #expect(config["tiles"] == .null)
            }
            // The service worker sits at the root (its scope is the whole app).
            try await client.execute(uri: "/sw.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(String(buffer: response.body).contains("addEventListener('fetch'"))
            }
            // Leaflet only with tiles; an unknown page is the app's 404 for a browser, a problem otherwise.
            try await client.execute(uri: "/vendor/leaflet/leaflet.css", method: .get) {
                try Self.expectProblem($0, .notFound)
            }
            try await client.execute(uri: "/no/such/page", method: .get, headers: Self.pageAccept) {
                response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
            try await client.execute(uri: "/no/such/page", method: .get) {
                try Self.expectProblem($0, .notFound)
            }
            try await client.execute(uri: "/v1/nothing", method: .get, headers: Self.pageAccept) {
                try Self.expectProblem($0, .notFound)
            }
            try await client.execute(uri: "/app/../Package.swift", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }

    @Test func streetTilesBringLeafletAndTheirOriginOnly() async throws {
        let template = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        try await webApp(tiles: template).test(.router) { client in
            try await client.execute(uri: "/hunts/strip-classics", method: .get, headers: Self.pageAccept) {
                let policy = $0.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
                #expect(
                    policy.contains("img-src 'self' blob: data: https://tile.openstreetmap.org;"), "\(policy)"
                )
                #expect(policy.contains("connect-src 'self';"))
            }
            try await client.execute(uri: "/app/config.json", method: .get) { response in
                let config = try Self.object(response)
                #expect(config["tiles"] == .string(template))
                #expect(config["attribution"] == .string("© OpenStreetMap contributors"))
            }
            // Debian's libjs-leaflet (make test-deps installs it), served with its licence.
            for path in [
                "/vendor/leaflet/leaflet.esm.min.js", "/vendor/leaflet/leaflet.css",
                "/vendor/leaflet/LICENSE.txt",
            ] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .ok, "\(path)") }
            }
        }
        #expect(WebConfiguration.isValidTemplate(template))
        #expect(!WebConfiguration.isValidTemplate("javascript:alert(1)/{z}/{x}/{y}"))
        #expect(!WebConfiguration.isValidTemplate("https://tile.example.org/tiles.png"))
    }

    @Test func aCheckInsPhotoIsForItsPlayerAndModeratorsOnly() async throws {
        let photo = try [UInt8](
            Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        try await webApp().test(.router) { client in
            let ann = try await Self.register(client, "Ann Lee")
            let bo = try await Self.register(client, "Bo Chen")
            let mo = try await Self.register(client, "Mo")
            try await store.setRole(.moderator, player: try #require(try await store.player(named: "Mo")).id)
            var id = 0
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(ann),
                body: Self.form([("photo", "sign.jpg", photo)])
            ) { response in
                if case .number(let value, _)? = try Self.object(response)["id"] { id = Int(value) }
            }
            try #require(id > 0)
            try await client.execute(
                uri: "/v1/me/checkins", method: .get, headers: [.authorization: "Bearer \(ann)"]
            ) {
                #expect(String(buffer: $0.body).contains(#""has_photo":true"#))
            }
            for (token, allowed) in [(ann, true), (mo, true), (bo, false)] {
                try await client.execute(
                    uri: "/v1/checkins/\(id)/photo", method: .get,
                    headers: [.authorization: "Bearer \(token)"]
                ) { response in
                    if allowed {
                        #expect(response.status == .ok)
                        #expect(response.headers[.contentType] == "image/jpeg")
                        let bytes = Array(response.body.readableBytesView)
                        let image = try JPEGCodec.decode(bytes, covering: 10_000, 10_000)
                        #expect(image.width == 480 && image.height == 480)
                        // Drawn anew: no EXIF block (and so no GPS) in the answer.
                        #expect(PhotoReader.metadata(bytes: bytes)?.position == nil)
                        #expect(
                            !bytes.indices.dropLast(4).contains {
                                Array(bytes[$0..<$0 + 4]) == Array("Exif".utf8)
                            })
                    } else {
                        try Self.expectProblem(response, .notFound)
                    }
                }
            }
            try await client.execute(uri: "/v1/checkins/\(id)/photo", method: .get) {
                try Self.expectProblem($0, .unauthorized)
            }
            try await client.execute(
                uri: "/v1/checkins/x/photo", method: .get, headers: [.authorization: "Bearer \(ann)"]
            ) {
                try Self.expectProblem($0, .notFound)
            }
        }
    }

    @Test func aFinishedHuntHasAPublicPageWithItsCollage() async throws {
        let stops: [(Double, Double)] = [
            (36.17058, -115.144265), (36.172823, -115.141252), (36.176513, -115.135277), (36.1803, -115.1336),
            (36.16759, -115.138432), (36.1675, -115.1525), (36.1588, -115.1525),
        ]
        // An evening walk in Las Vegas that ends at 19:20, when it is already 03:20 on the 22nd in
        // UTC. The server's clock moves with the walk: each fix arrives 30 s after it was taken.
        let now = Date(timeIntervalSince1970: 1_795_317_600)
        let clock = Mutex(now)
        try await webApp(clock: { clock.withLock { $0 } }).test(.router) { client in
            let ann = try await Self.register(client, "Ann O'Neil")
            try await client.execute(uri: "/share/Ann%20O'Neil/downtown-fremont", method: .get) {
                try Self.expectProblem($0, .notFound)
            }
            for (index, stop) in stops.enumerated() {
                // Ten minutes apart, the last a minute before `now`: a brisk walk.
                let taken = now.addingTimeInterval(Double(-60 - 600 * (stops.count - 1 - index)))
                clock.withLock { $0 = taken.addingTimeInterval(30) }
                let time = RFC3339.format(taken)
                try await client.execute(
                    uri: "/v1/checkins", method: .post, headers: Self.formHeaders(ann),
                    body: Self.form([
                        ("lat", nil, Array(String(stop.0).utf8)), ("lon", nil, Array(String(stop.1).utf8)),
                        ("accuracy_m", nil, Array("6".utf8)), ("fix_time", nil, Array(time.utf8)),
                        ("hunt", nil, Array("downtown-fremont".utf8)),
                    ])
                ) { response in
                    let answer = try Self.object(response)
                    #expect(answer["verdict"] == .string("accepted"), "\(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/share/Ann%20O'Neil/downtown-fremont", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(
                    page.contains(
                        #"<meta property="og:title" content="Ann O&#39;Neil completed Downtown &amp; Fremont">"#
                    ))
                #expect(
                    page.contains(
                        #"<meta property="og:image" content="http://127.0.0.1:8080/v1/players/Ann%20O%27Neil/hunts/downtown-fremont/collage">"#
                    ), "\(page)")
                #expect(page.contains("og:url"))
                // The day it was finished on the hunt's clock.
                #expect(page.contains("visited, finished on 2026-11-21."), "\(page)")
            }
            try await client.execute(
                uri: "/v1/players/Ann%20O'Neil/hunts/downtown-fremont/collage", method: .get
            ) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                let image = try JPEGCodec.decode(
                    Array(response.body.readableBytesView), covering: 10_000, 10_000)
                #expect(image.width > 900)
            }
            // Another hunt, not finished: nothing to share.
            try await client.execute(
                uri: "/v1/players/Ann%20O'Neil/hunts/strip-classics/collage", method: .get
            ) {
                try Self.expectProblem($0, .notFound)
            }
            try await client.execute(uri: "/v1/players/Ann%20O'Neil", method: .get) { response in
                let profile = try Self.object(response)
                #expect(profile["avatar_url"] == .null)
            }
        }
    }

    @Test func huntAndStopImagesAreServedWithoutTheirMetadataAndOnlyFromTheFolder() async throws {
        // A hunts folder whose Strip Classics names images: a camera photo with GPS for the hunt and
        // the Welcome sign, and for the Sphinx a path that leaves the folder.
        let hunts = folder.appendingPathComponent("hunts-with-images")
        try FileManager.default.createDirectory(
            at: hunts.appendingPathComponent("images"), withIntermediateDirectories: true)
        try TestSupport.copyShippedHunts(to: hunts)
        let photo = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg")
        try FileManager.default.copyItem(at: photo, to: hunts.appendingPathComponent("images/sign.jpg"))
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("outside.jpg"))
        let file = hunts.appendingPathComponent("strip-classics.geojson")
        var text = try String(contentsOf: file, encoding: .utf8)
        var slots = ["images/sign.jpg", "images/sign.jpg", "../outside.jpg"]
        while let range = text.range(of: #""image": null"#), !slots.isEmpty {
            text.replaceSubrange(range, with: #""image": "\#(slots.removeFirst())""#)
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let league = try await SpatiaLiteStore.open(
            path: folder.appendingPathComponent("images.sqlite").path,
            hunts: HuntsFolder(path: hunts.path, required: true))
        var configuration = ServerConfiguration(
            store: league, photos: FilePhotoStore.beside(databasePath: league.path), clock: { [now] in now })
        configuration.uploadFolder = folder.appendingPathComponent("uploads").path
        configuration.huntsFolder = hunts.path
        try await buildApplication(configuration).test(.router) { client in
            for path in ["/v1/hunts/strip-classics/image", "/v1/stops/welcome-sign/image"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == "image/jpeg")
                    let bytes = Array(response.body.readableBytesView)
                    #expect(PhotoReader.metadata(bytes: bytes)?.position == nil, "GPS left the server")
                    let image = try JPEGCodec.decode(bytes, covering: 10_000, 10_000)
                    #expect(max(image.width, image.height) <= 1024 && image.width > 0)
                }
            }
            // The original has GPS (so the test above can fail).
            #expect(PhotoReader.metadata(bytes: [UInt8](try Data(contentsOf: photo)))?.position != nil)
            for path in [
                "/v1/stops/luxor-sphinx/image", "/v1/hunts/downtown-fremont/image", "/v1/stops/nowhere/image",
                "/v1/hunts/..%2F..%2Fetc/image",
            ] {
                try await client.execute(uri: path, method: .get) { try Self.expectProblem($0, .notFound) }
            }
        }
    }

    /// An accuracy no integer can hold is refused (it once crashed the process that formatted it).
    @Test func anAccuracyBeyondAnyIntegerIsRefused() async throws {
        try await webApp().test(.router) { client in
            let token = try await Self.register(client, "Ann Lee")
            for value in ["1e19", "-1", "1e400"] {
                try await client.execute(
                    uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                    body: Self.sphereFix(RFC3339.format(now.addingTimeInterval(-30)), accuracy: value)
                ) { response in try Self.expectProblem(response, .unprocessableContent) }
            }
            try await client.execute(
                uri: "/v1/me/checkins", method: .get, headers: [.authorization: "Bearer \(token)"]
            ) {
                #expect(String(buffer: $0.body) == "[]")
            }
        }
    }

    @Test func theEventStreamIsOnlyForThoseWhoAskForIt() async throws {
        try await webApp().test(.router) { client in
            try await client.execute(uri: "/v1/events", method: .get) {
                try Self.expectProblem($0, .notAcceptable)
            }
        }
    }
}

/// `vsh leaderboard --format html`'s page, filled from the web app's `board.html`.
@Suite struct LeaderboardPageTests {
    func entry(_ rank: Int, _ name: String, points: Int) -> LeaderboardEntry {
        LeaderboardEntry(
            rank: rank, playerID: PlayerID(rawValue: Int64(rank)), player: name, points: points,
            huntsCompleted: 1,
            stopsVisited: 3, badges: 2, reachedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func eachEntryIsOneRowItsNameEscapedAndTheTopThreeMarked() throws {
        let names = ["<script>alert(1)</script>", "{{#rows}}x{{/rows}}", "Zoë O'Brien", "Dee"]
        let page = try LeaderboardPage.html(
            names.enumerated().map { entry($0.offset + 1, $0.element, points: 100 - $0.offset) },
            title: "Fremont & friends", generated: Date(timeIntervalSince1970: 1_795_285_860),
            clock: HuntClock(hunts: [Hunt(id: "strip", name: "Strip", timeZone: "America/Los_Angeles")]),
            refreshSeconds: 45)
        #expect(page.components(separatedBy: "<tr class=\"r").count - 1 == names.count)
        #expect(page.contains("<title>Fremont &amp; friends</title>"))
        #expect(page.contains("content=\"45\""))
        #expect(!page.contains("<script>") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("<td class=\"player\">{{#rows}}x{{/rows}}</td>"))
        #expect(
            page.contains(
                "<tr class=\"r bronze\"><td class=\"rank\">3</td><td class=\"player\">Zoë O&#39;Brien</td>"))
        #expect(page.contains("<tr class=\"r\"><td class=\"rank\">4</td>"))
        #expect(!page.contains("No scores yet") && !page.contains("{{rank}}") && !page.contains("{{#empty}}"))
        // When, on the hunt's clock: 2026-11-21T18:31:00Z in Las Vegas.
        #expect(page.contains("Updated 2026-11-21 10:31 PST<"))
    }

    @Test func anEmptyBoardSaysSo() throws {
        let page = try LeaderboardPage.html(
            [], title: "Board", generated: Date(timeIntervalSince1970: 0), clock: HuntClock(hunts: []))
        #expect(page.contains("Updated 1970-01-01 00:00 UTC<"))
        #expect(page.contains("No scores yet: go find the first stop!"))
        #expect(!page.contains("<tr class=\"r") && !page.contains("{{") && page.hasSuffix("</html>\n"))
    }
}
