import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import VSHCore
import VSHMemoryStore
import VSHPhoto
import VSHServer
import VSHSpatiaLite
import VSHTestSupport

/// The service in-process (Hummingbird's router test mode) over a real SpatiaLite league.
@Suite struct ServerTests {
    let folder: URL
    let store: SpatiaLiteStore
    let now = Date(timeIntervalSince1970: 1_795_300_000)

    init() async throws {
        folder = try TestSupport.temporaryDirectory("vsh-server")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        store = try await SpatiaLiteStore.open(
            path: path,
            hunts: HuntsFolder(
                path: TestSupport.freePacedHunts.path, required: true))
    }

    var app: some ApplicationProtocol { app() }

    func app(
        limits: RateLimits = RateLimits(), origins: [String] = [], clock: (@Sendable () -> Date)? = nil
    ) -> some ApplicationProtocol {
        let now = self.now
        var configuration = ServerConfiguration(
            store: store, photos: FilePhotoStore.beside(databasePath: store.path), clock: clock ?? { now })
        configuration.limits = limits
        configuration.allowedOrigins = origins
        configuration.uploadFolder = folder.appendingPathComponent("uploads").path
        return buildApplication(configuration)
    }

    static func body(_ value: String) -> ByteBuffer { ByteBuffer(string: value) }
    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    static func object(_ response: TestResponse) throws -> JSONObject {
        guard case .object(let object) = try JSONValue.parse(Array(response.body.readableBytesView)) else {
            throw FixtureError("not a JSON object: \(String(buffer: response.body))")
        }
        return object
    }

    /// A problem response: the status, `application/problem+json`, and the four RFC 9457 members.
    static func expectProblem(
        _ response: TestResponse, _ status: HTTPResponse.Status,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let problem = try object(response)
        #expect(problem.keys == ["type", "title", "status", "detail"], sourceLocation: sourceLocation)
        #expect(problem["status"] == .int(status.code), sourceLocation: sourceLocation)
    }

    /// The OpenAPI document describes exactly the endpoints the router serves (both come from
    /// `Endpoint.all`), and `/openapi.json` serves that document.
    @Test func theDocumentIsTheRouter() async throws {
        #expect(OpenAPIDocument.documentedEndpoints == Set(Endpoint.all))
        #expect(Endpoint.all.count == 60)
        try await app.test(.router) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                let served = try JSONValue.parse(Array(response.body.readableBytesView))
                #expect(served == OpenAPIDocument.document)
            }
            // Every endpoint is routed: none answers the router's own 404 for an unknown route.
            for endpoint in Endpoint.all {
                let uri = endpoint.path.replacingOccurrences(of: "/v1/reviews/{id}", with: "/v1/reviews/1")
                    .replacingOccurrences(of: "{id}", with: "strip-classics")
                    .replacingOccurrences(of: "{username}", with: "nobody")
                try await client.execute(uri: uri, method: endpoint.method) { response in
                    #expect(!String(buffer: response.body).contains("no route"), "\(endpoint.path)")
                    #expect(response.status != .methodNotAllowed, "\(endpoint.path)")
                }
            }
        }
    }

    @Test func healthHuntsBoardsAndProfilesAreOpenToAnyone() async throws {
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/hunts", method: .get) { response in
                #expect(response.status == .ok)
                guard case .array(let hunts) = try JSONValue.parse(Array(response.body.readableBytesView))
                else {
                    Issue.record("not an array")
                    return
                }
                #expect(hunts.count == 2)
            }
            try await client.execute(uri: "/v1/hunts/strip-classics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/geo+json")
                // The hunt file, with the hunt's state now beside its metadata.
                let file = try JSONValue.parse(
                    [UInt8](
                        Data(
                            contentsOf: TestSupport.freePacedHunts.appendingPathComponent(
                                "strip-classics.geojson"))))
                guard case .object(var expected) = file else {
                    Issue.record("the hunt file is not an object")
                    return
                }
                expected["state"] = .string("open")
                #expect(try JSONValue.parse(Array(response.body.readableBytesView)) == .object(expected))
            }
            try await client.execute(uri: "/v1/hunts/atlantis", method: .get) { response in
                try Self.expectProblem(response, .notFound)
            }
            try await client.execute(uri: "/v1/leaderboard?limit=0", method: .get) { response in
                try Self.expectProblem(response, .badRequest)
            }
            try await client.execute(uri: "/v1/leaderboard", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "[]")
            }
            try await client.execute(uri: "/v1/nowhere", method: .get) { response in
                try Self.expectProblem(response, .notFound)
            }
        }
    }

    @Test func registerSignInReadYourselfAndSignOut() async throws {
        try await app.test(.router) { client in
            var token = ""
            try await client.execute(
                uri: "/v1/accounts", method: .post, headers: Self.jsonHeaders,
                body: Self.body(
                    #"{"username":"Ann Lee","email":"ann@example.org","password":"tumbling dice"}"#)
            ) { response in
                #expect(response.status == .created)
                let answer = try Self.object(response)
                #expect(answer.keys == ["player", "token", "expires_at"])
                guard case .string(let issued)? = answer["token"] else { return }
                token = issued
                #expect(token.count == 64)
            }
            // The same name in another case is taken.
            try await client.execute(
                uri: "/v1/accounts", method: .post, headers: Self.jsonHeaders,
                body: Self.body(#"{"username":"ann lee","email":"x@example.org","password":"another one"}"#)
            ) { response in try Self.expectProblem(response, .conflict) }

            let me: HTTPFields = [.authorization: "Bearer \(token)"]
            try await client.execute(uri: "/v1/me", method: .get, headers: me) { response in
                #expect(response.status == .ok)
                let profile = try Self.object(response)
                #expect(profile["name"] == .string("Ann Lee"))
                #expect(profile["email"] == .string("ann@example.org"))
                #expect(profile["role"] == .string("player"))
            }
            // The public profile never shows the e-mail address.
            try await client.execute(uri: "/v1/players/ann%20lee", method: .get) { response in
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains("example.org"))
            }
            // A wrong password and a wrong name get the same answer.
            var answers: [String] = []
            for attempt in [
                #"{"username":"Ann Lee","password":"wrong password"}"#,
                #"{"username":"Nobody","password":"tumbling dice"}"#,
            ] {
                try await client.execute(
                    uri: "/v1/sessions", method: .post, headers: Self.jsonHeaders, body: Self.body(attempt)
                ) {
                    response in
                    try Self.expectProblem(response, .unauthorized)
                    answers.append(String(buffer: response.body))
                }
            }
            #expect(answers.count == 2 && answers[0] == answers[1])
            var second = ""
            try await client.execute(
                uri: "/v1/sessions", method: .post, headers: Self.jsonHeaders,
                body: Self.body(#"{"username":"ANN LEE","password":"tumbling dice"}"#)
            ) { response in
                #expect(response.status == .created)
                if case .string(let issued)? = try Self.object(response)["token"] { second = issued }
            }
            #expect(second != token && second.count == 64)
            try await client.execute(uri: "/v1/sessions/current", method: .delete, headers: me) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/v1/me", method: .get, headers: me) { response in
                try Self.expectProblem(response, .unauthorized)
            }
            try await client.execute(
                uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(second)"]
            ) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/me", method: .get) { response in
                try Self.expectProblem(response, .unauthorized)
            }
        }
        // Stored: a bcrypt hash, and the tokens only as hashes.
        let hash = try #require(try await store.credentials(named: "Ann Lee")?.passwordHash)
        #expect(hash.hasPrefix("$2"))
    }

    /// A `multipart/form-data` body from parts (name, file name or nil, bytes).
    static func form(_ parts: [(String, String?, [UInt8])], boundary: String = "vsh-test-boundary")
        -> ByteBuffer
    {
        var body: [UInt8] = []
        for (name, file, bytes) in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
            if let file { head += "; filename=\"\(file)\"\r\nContent-Type: image/jpeg" }
            head += "\r\n\r\n"
            body += Array(head.utf8) + bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ByteBuffer(bytes: body)
    }

    /// A device-fix check-in form at the Sphere.
    static func sphereFix(_ time: String, accuracy: String = "8") -> ByteBuffer {
        form([
            ("lat", nil, Array("36.12056".utf8)), ("lon", nil, Array("-115.16139".utf8)),
            ("accuracy_m", nil, Array(accuracy.utf8)), ("fix_time", nil, Array(time.utf8)),
        ])
    }

    static func formHeaders(_ token: String) -> HTTPFields {
        [.contentType: "multipart/form-data; boundary=vsh-test-boundary", .authorization: "Bearer \(token)"]
    }

    /// Registers a player through the API and returns the token.
    static func register(_ client: some TestClientProtocol, _ name: String) async throws -> String {
        var token = ""
        try await client.execute(
            uri: "/v1/accounts", method: .post, headers: jsonHeaders,
            body: body(#"{"username":"\#(name)","email":"p@example.org","password":"tumbling dice"}"#)
        ) { response in
            if case .string(let issued)? = try Self.object(response)["token"] { token = issued }
        }
        return token
    }

    /// Photo bytes a player may upload are a quota (here 5,000 bytes): the first photo is taken,
    /// the next is 429 with Retry-After and records nothing, while device fixes still go through.
    @Test func photoBytesAreAQuotaPerPlayer() async throws {
        let photo = try [UInt8](
            Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        var limits = RateLimits()
        limits.photoBytesPerPlayer = RateLimit(perMinute: 1, burst: 5_000)
        try await app(limits: limits).test(.router) { client in
            let token = try await Self.register(client, "Ann Lee")
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form([("photo", "sign.jpg", photo)])
            ) { #expect($0.status == .created, "\(String(buffer: $0.body))") }
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form([("photo", "sign.jpg", photo)])
            ) { response in
                try Self.expectProblem(response, .tooManyRequests)
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 60)
            }
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.sphereFix(RFC3339.format(now.addingTimeInterval(-60)))
            ) { #expect($0.status == .created) }
        }
        #expect(try await store.players().first?.checkIns == 2)
    }

    @Test func checkInsWithAPhotoOrADeviceFix() async throws {
        let photo = try [UInt8](
            Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        try await app.test(.router) { client in
            let token = try await Self.register(client, "Ann Lee")
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form([("photo", "sign.jpg", photo)])
            ) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                let answer = try Self.object(response)
                #expect(answer["verdict"] == .string("accepted"))
                #expect(answer["stop"] == .string("welcome-sign"))
                #expect(answer["points"] == .int(50))
            }
            // A device fix at the Sphere, taken a minute before the (fixed) clock.
            let fixTime = RFC3339.format(now.addingTimeInterval(-60))
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.sphereFix(fixTime)
            ) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                let answer = try Self.object(response)
                #expect(answer["stop"] == .string("sphere"))
                #expect(answer["player"] == .string("Ann Lee"))
            }
            try await client.execute(
                uri: "/v1/me/checkins", method: .get, headers: [.authorization: "Bearer \(token)"]
            ) {
                response in
                #expect(response.status == .ok)
                guard case .array(let items) = try JSONValue.parse(Array(response.body.readableBytesView))
                else { return }
                #expect(items.count == 2)
                if case .object(let newest) = items.first { #expect(newest["stop"] == .string("sphere")) }
            }

            // Refusals: each one problem, nothing recorded.
            let half = Array(
                Self.form([("photo", "sign.jpg", photo)]).readableBytesView.prefix(photo.count / 2))
            let refusals: [(HTTPFields, ByteBuffer, HTTPResponse.Status)] = [
                (
                    [.contentType: "multipart/form-data; boundary=vsh-test-boundary"],
                    Self.form([("photo", "s.jpg", photo)]), .unauthorized
                ),
                (
                    [.contentType: "text/plain", .authorization: "Bearer \(token)"], Self.body("hello"),
                    .unsupportedMediaType
                ),
                (Self.formHeaders(token), ByteBuffer(bytes: half), .badRequest),
                (
                    Self.formHeaders(token), Self.form([("hunt", nil, Array("strip-classics".utf8))]),
                    .unprocessableContent
                ),
                (Self.formHeaders(token), Self.form([("selfie", nil, [1, 2, 3])]), .unprocessableContent),
                (
                    Self.formHeaders(token), Self.form([("photo", "x.jpg", Array("not a jpeg at all".utf8))]),
                    .unprocessableContent
                ),
                (
                    Self.formHeaders(token),
                    Self.form([
                        ("photo", "s.jpg", photo), ("lat", nil, Array("36.1".utf8)),
                        ("lon", nil, Array("-115.1".utf8)),
                    ]),
                    .unprocessableContent
                ),
                (
                    Self.formHeaders(token),
                    Self.form([
                        ("lat", nil, Array("95".utf8)), ("lon", nil, Array("-115.1".utf8)),
                        ("accuracy_m", nil, Array("5".utf8)),
                        ("fix_time", nil, Array(fixTime.utf8)),
                    ]), .unprocessableContent
                ),
            ]
            for (headers, body, status) in refusals {
                try await client.execute(uri: "/v1/checkins", method: .post, headers: headers, body: body) {
                    response in
                    try Self.expectProblem(response, status)
                }
            }
        }
        #expect(try await store.players().first?.checkIns == 2)
    }

    /// The phone's normal case: a photo and the device's fix together (docs/anti-cheat.md).
    @Test func aPhotoWithTheDevicesFixIsCrossChecked() async throws {
        @Sendable func fixture(_ name: String) throws -> [UInt8] {
            try [UInt8](
                Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/\(name)")))
        }
        @Sendable func fix(_ lat: String, _ lon: String, _ time: String = "2026-11-21T19:31:00Z") -> [(
            String, String?, [UInt8]
        )] {
            [
                ("lat", nil, Array(lat.utf8)), ("lon", nil, Array(lon.utf8)),
                ("accuracy_m", nil, Array("6".utf8)),
                ("fix_time", nil, Array(time.utf8)),
            ]
        }
        // Received a minute after the fixes: fresh (a later one would go to review).
        let received = RFC3339.parse("2026-11-21T19:32:00Z")!
        try await app(clock: { received }).test(.router) { client in
            var answers: [JSONObject] = []
            for (player, photo, lat, lon) in [
                ("Ann", "sign-near.jpg", "36.08205", "-115.17275"),  // the photo's GPS agrees (30 m)
                ("Bob", "far-away.jpg", "36.08205", "-115.17275"),  // taken 2.5 km away
                ("Cy", "no-gps.jpg", "36.08205", "-115.17275"),  // stripped by the browser
                ("Di", "no-gps.jpg", "36.08205", "-115.17275"),  // the same photo again
            ] {
                let token = try await Self.register(client, player)
                try await client.execute(
                    uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                    body: Self.form([("photo", photo, try fixture(photo))] + fix(lat, lon))
                ) { response in
                    #expect(response.status == .created, "\(String(buffer: response.body))")
                    answers.append(try Self.object(response))
                }
            }
            func rule(_ answer: JSONObject, _ name: String) -> JSONValue? {
                guard case .array(let rules)? = answer["rules"] else { return nil }
                for case .object(let r) in rules where r["rule"] == .string(name) { return r["result"] }
                return nil
            }
            try #require(answers.count == 4)
            #expect(answers[0]["verdict"] == .string("accepted"))
            #expect(answers[0]["stop"] == .string("welcome-sign"))
            #expect(rule(answers[0], "clocks_agree") == .string("passed"))
            #expect(answers[1]["verdict"] == .string("rejected"))
            #expect(rule(answers[1], "position") == .string("failed"))
            #expect(answers[2]["verdict"] == .string("accepted"))
            #expect(answers[2]["points"] == .int(50))
            #expect(answers[3]["verdict"] == .string("rejected"))
            #expect(rule(answers[3], "unique_photo") == .string("failed"))
            // A fix taken 20 minutes after the photo: a moderator decides.
            let token = try await Self.register(client, "Ed")
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form(
                    [("photo", "v.jpg", try fixture("sign-vertex.jpg"))]
                        + fix("36.08093", "-115.17291", "2026-11-21T19:50:00Z"))
            ) { response in
                let answer = try Self.object(response)
                #expect(answer["verdict"] == .string("pending"))
                #expect(rule(answer, "clocks_agree") == .string("needs_review"))
            }
        }
        // Every photo was kept, refused or not: five check-ins, five photos on record.
        #expect(try await store.players().reduce(0) { $0 + $1.checkIns } == 5)
    }

    /// A photo without GPS sent without the device's position (location denied or slow) can never
    /// be accepted: 422 naming what is missing, and nothing recorded, so the photo is not spent. The
    /// same photo with a fix then counts.
    @Test func aPhotoWithoutAnyPositionIsRefusedAndDoesNotSpendThePhoto() async throws {
        let received = RFC3339.parse("2026-11-21T19:32:00Z")!
        let photo = try [UInt8](
            Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/no-gps.jpg")))
        try await app(clock: { received }).test(.router) { client in
            let token = try await Self.register(client, "Cy")
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form([("photo", "no-gps.jpg", photo)])
            ) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.headers[.contentType] == "application/problem+json")
                let problem = try Self.object(response)
                #expect(problem["title"] == .string("No position"), "\(problem)")
                guard case .string(let detail)? = problem["detail"] else {
                    Issue.record("no detail: \(problem)")
                    return
                }
                #expect(detail.contains("no usable GPS position") && detail.contains("location"), "\(detail)")
            }
            #expect(try await store.players().reduce(0) { $0 + $1.checkIns } == 0)
            let fix: [(String, String?, [UInt8])] = [
                ("lat", nil, Array("36.08205".utf8)), ("lon", nil, Array("-115.17275".utf8)),
                ("accuracy_m", nil, Array("6".utf8)), ("fix_time", nil, Array("2026-11-21T19:31:00Z".utf8)),
            ]
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.form([("photo", "no-gps.jpg", photo)] + fix)
            ) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
                let answer = try Self.object(response)
                #expect(answer["verdict"] == .string("accepted"))
            }
        }
    }

    /// `Idempotency-Key`: a phone that lost its connection mid-upload retries and gets the first answer.
    @Test func aRetryWithTheSameKeyGetsTheFirstAnswerAndRecordsNothing() async throws {
        let photo = try [UInt8](
            Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        try await app.test(.router) { client in
            let token = try await Self.register(client, "Ann")
            var headers = Self.formHeaders(token)
            headers[HTTPField.Name("Idempotency-Key")!] = "2f1c6a0e-upload-1"
            var bodies: [String] = []
            for _ in 0..<2 {
                try await client.execute(
                    uri: "/v1/checkins", method: .post, headers: headers,
                    body: Self.form([("photo", "s.jpg", photo)])
                ) { response in
                    #expect(response.status == .created)
                    bodies.append(String(buffer: response.body))
                    #expect(
                        response.headers[HTTPField.Name("Idempotent-Replayed")!]
                            == (bodies.count == 2 ? "true" : nil))
                }
            }
            #expect(bodies.count == 2 && bodies[0] == bodies[1])
            #expect(bodies.first?.contains(#""verdict":"accepted""#) == true)
            // Ten retries at once with a new key: one check-in.
            headers[HTTPField.Name("Idempotency-Key")!] = "2f1c6a0e-fix-2"
            let fixTime = RFC3339.format(now.addingTimeInterval(-60))
            let fix = Self.sphereFix(fixTime)
            let retryHeaders = headers
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/checkins", method: .post, headers: retryHeaders, body: fix
                        ) {
                            String(buffer: $0.body)
                        }
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(answers.count == 1)
            // The same key for a different check-in is refused; a malformed key is a 400.
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: headers,
                body: Self.form([("photo", "s.jpg", photo)])
            ) { response in
                try Self.expectProblem(response, .unprocessableContent)
            }
            headers[HTTPField.Name("Idempotency-Key")!] = "has spaces in it"
            try await client.execute(uri: "/v1/checkins", method: .post, headers: headers, body: fix) {
                response in
                try Self.expectProblem(response, .badRequest)
            }
        }
        #expect(try await store.players().first?.checkIns == 2)
    }

    /// PATCH /v1/me: the current password is required; a new password ends every session.
    @Test func changingYourAddressAndPassword() async throws {
        try await app.test(.router) { client in
            let token = try await Self.register(client, "Ann")
            let me: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            let refusals: [(String, HTTPResponse.Status)] = [
                (#"{"current_password":"not my password","email":"new@example.org"}"#, .forbidden),
                (#"{"email":"new@example.org"}"#, .unprocessableContent),
                (#"{"current_password":"tumbling dice"}"#, .unprocessableContent),
                (#"{"current_password":"tumbling dice","email":"no address"}"#, .unprocessableContent),
                (#"{"current_password":"tumbling dice","password":"short"}"#, .unprocessableContent),
                (#"{"current_password":"tumbling dice","role":"moderator"}"#, .unprocessableContent),
            ]
            for (body, status) in refusals {
                try await client.execute(uri: "/v1/me", method: .patch, headers: me, body: Self.body(body)) {
                    try Self.expectProblem($0, status)
                }
            }
            #expect(try await store.player(named: "Ann")?.email == "p@example.org")
            try await client.execute(
                uri: "/v1/me", method: .patch, headers: me,
                body: Self.body(#"{"current_password":"tumbling dice","email":"ann@example.net"}"#)
            ) { response in
                #expect(response.status == .ok)
                let answer = try Self.object(response)
                #expect(answer["email"] == .string("ann@example.net"))
                #expect(answer["token"] == .null)
            }
            #expect(try await store.player(named: "Ann")?.email == "ann@example.net")
            var fresh = ""
            try await client.execute(
                uri: "/v1/me", method: .patch, headers: me,
                body: Self.body(#"{"current_password":"tumbling dice","password":"loaded dice 7"}"#)
            ) { response in
                #expect(response.status == .ok)
                if case .string(let issued)? = try Self.object(response)["token"] { fresh = issued }
            }
            #expect(fresh.count == 64)
            // The old token ended with the old password; the fresh one works; so does the new password.
            try await client.execute(uri: "/v1/me", method: .get, headers: me) {
                try Self.expectProblem($0, .unauthorized)
            }
            try await client.execute(
                uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(fresh)"]
            ) {
                #expect($0.status == .ok)
            }
            try await client.execute(
                uri: "/v1/sessions", method: .post, headers: Self.jsonHeaders,
                body: Self.body(#"{"username":"ann","password":"loaded dice 7"}"#)
            ) { #expect($0.status == .created) }
        }
    }

    /// Avatars are re-encoded: the GPS of the upload never leaves the server.
    @Test func avatarsAreStoredWithoutMetadata() async throws {
        let photo = try [UInt8](
            Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        #expect(PhotoReader.metadata(bytes: photo)?.position != nil)
        try await app.test(.router) { client in
            let token = try await Self.register(client, "Ann")
            try await client.execute(uri: "/v1/players/Ann/avatar", method: .get) {
                try Self.expectProblem($0, .notFound)
            }
            let jpeg: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "image/jpeg"]
            try await client.execute(
                uri: "/v1/me/avatar", method: .put, headers: jpeg, body: ByteBuffer(bytes: photo)
            ) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/v1/players/ann/avatar", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                let bytes = Array(response.body.readableBytesView)
                #expect(bytes.starts(with: [0xFF, 0xD8]))
                #expect(PhotoReader.metadata(bytes: bytes)?.position == nil)
                #expect(PhotoReader.metadata(bytes: bytes)?.make == nil)
                // No APP1 (EXIF or XMP) segment at all, and the picture is the promised square.
                #expect(!bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xE1 })
                let image = try JPEGCodec.decode(bytes, covering: 1, 1)
                #expect(image.width == image.height)
            }
            // The bytes decide, not the header: text sent as image/jpeg is no picture (415), a
            // JPEG is one whatever image type the header names; a JPEG cut short is unreadable.
            try await client.execute(
                uri: "/v1/me/avatar", method: .put,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png"],
                body: ByteBuffer(bytes: photo)
            ) { #expect($0.status == .noContent) }
            for (headers, body, status) in [
                (jpeg, ByteBuffer(string: "not a jpeg"), HTTPResponse.Status.unsupportedMediaType),
                (jpeg, ByteBuffer(), .unprocessableContent),
                (jpeg, ByteBuffer(bytes: photo.prefix(600)), .unprocessableContent),
                (
                    [.authorization: "Bearer \(token)", .contentType: "text/plain"], ByteBuffer(bytes: photo),
                    .unsupportedMediaType
                ),
                ([.contentType: "image/jpeg"], ByteBuffer(bytes: photo), .unauthorized),
            ] as [(HTTPFields, ByteBuffer, HTTPResponse.Status)] {
                try await client.execute(uri: "/v1/me/avatar", method: .put, headers: headers, body: body) {
                    try Self.expectProblem($0, status)
                }
            }
        }
    }

    /// CORS only for the origins named by `--allow-origin`; none without it.
    @Test func onlyNamedOriginsGetCORSHeaders() async throws {
        let allowed = "https://hunt.example.org"
        try await app(origins: [allowed]).test(.router) { client in
            try await client.execute(
                uri: "/v1/checkins", method: .options,
                headers: [.origin: allowed, .accessControlRequestMethod: "POST"]
            ) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowOrigin] == allowed)
                #expect(response.headers[.accessControlAllowHeaders]?.contains("Idempotency-Key") == true)
            }
            try await client.execute(uri: "/v1/hunts", method: .get, headers: [.origin: allowed]) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == allowed)
            }
            // Problems carry the header too, so the page can read them.
            try await client.execute(uri: "/v1/me", method: .get, headers: [.origin: allowed]) { response in
                try Self.expectProblem(response, .unauthorized)
                #expect(response.headers[.accessControlAllowOrigin] == allowed)
            }
            try await client.execute(
                uri: "/v1/hunts", method: .get, headers: [.origin: "https://evil.example.com"]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/hunts", method: .get, headers: [.origin: allowed]) {
                response in
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    /// Public reads are cached until the next write, with ETags for conditional requests.
    @Test func leaderboardsAreCachedUntilTheNextWrite() async throws {
        try await app.test(.router) { client in
            let token = try await Self.register(client, "Ann")
            var etag = ""
            try await client.execute(uri: "/v1/leaderboard", method: .get) { response in
                #expect(response.status == .ok)
                etag = response.headers[.eTag] ?? ""
                #expect(String(buffer: response.body) == "[]")  // nobody has points yet
            }
            #expect(etag.hasPrefix("\"") && etag.count > 10)
            try await client.execute(uri: "/v1/leaderboard", method: .get, headers: [.ifNoneMatch: etag]) {
                #expect($0.status == .notModified)
            }
            // A check-in (a write) empties the cache: the next read shows the points at once.
            let fixTime = RFC3339.format(now.addingTimeInterval(-60))
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(token),
                body: Self.sphereFix(fixTime)
            ) { #expect($0.status == .created) }
            try await client.execute(uri: "/v1/leaderboard", method: .get, headers: [.ifNoneMatch: etag]) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != etag)
                #expect(String(buffer: response.body).contains(#""player":"Ann""#))
            }
            try await client.execute(uri: "/v1/players/Ann", method: .get) { response in
                #expect(String(buffer: response.body).contains(#""stops_visited":1"#))
            }
        }
    }

    @Test func moderatorsWorkTheReviewQueue() async throws {
        let fixTime = RFC3339.format(now.addingTimeInterval(-60))
        // Accuracy 120 m is worse than the hunt's 50 m: the check-in waits for a moderator.
        let poorFix = Self.sphereFix(fixTime, accuracy: "120")
        try await app.test(.router) { client in
            let player = try await Self.register(client, "Pat")
            let mod = try await Self.register(client, "Mo")
            try await store.setRole(.moderator, player: try #require(try await store.player(named: "Mo")).id)
            var pendingID = 0
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(player), body: poorFix
            ) {
                response in
                let answer = try Self.object(response)
                #expect(answer["verdict"] == .string("pending"))
                if case .number(let id, _)? = answer["id"] { pendingID = Int(id) }
            }
            let asPlayer: HTTPFields = [.authorization: "Bearer \(player)", .contentType: "application/json"]
            let asModerator: HTTPFields = [.authorization: "Bearer \(mod)", .contentType: "application/json"]
            try await client.execute(uri: "/v1/reviews", method: .get, headers: asPlayer) { response in
                try Self.expectProblem(response, .forbidden)
            }
            try await client.execute(uri: "/v1/reviews", method: .get, headers: asModerator) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("accuracy"))
            }
            // An organiser may do everything a moderator may.
            let organiser = try await Self.register(client, "Olga")
            try await store.setRole(
                .organiser, player: try #require(try await store.player(named: "Olga")).id)
            try await client.execute(
                uri: "/v1/reviews", method: .get, headers: [.authorization: "Bearer \(organiser)"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("accuracy"))
            }
            /// POST /v1/reviews/{id}/{action} with a JSON body, checked by `check`.
            func review(
                _ id: Int, _ action: String, _ body: String, as headers: HTTPFields = asModerator,
                _ check: @escaping @Sendable (TestResponse) throws -> Void
            ) async throws {
                try await client.execute(
                    uri: "/v1/reviews/\(id)/\(action)", method: .post, headers: headers, body: Self.body(body)
                ) { try check($0) }
            }
            try await review(pendingID, "reject", "{}") { try Self.expectProblem($0, .unprocessableContent) }
            try await review(pendingID, "approve", "{}", as: asPlayer) {
                try Self.expectProblem($0, .forbidden)
            }
            try await review(pendingID, "approve", #"{"reason":"the Sphere is in the picture"}"#) {
                response in
                #expect(response.status == .ok)
                let outcome = try Self.object(response)
                #expect(outcome["state"] == .string("accepted"))
                #expect(outcome["points_change"] == .int(80))
            }
            try await review(pendingID, "approve", "{}") { try Self.expectProblem($0, .conflict) }
            try await review(999, "approve", "{}") { try Self.expectProblem($0, .notFound) }
            // A second visit, rejected by the moderator, then overturned: a reason is required,
            // and the answer names the check-in that now holds it.
            var secondID = 0
            try await client.execute(
                uri: "/v1/checkins", method: .post, headers: Self.formHeaders(player), body: poorFix
            ) { response in
                if case .number(let id, _)? = try Self.object(response)["id"] { secondID = Int(id) }
            }
            let rejectedID = secondID
            try await review(rejectedID, "reject", #"{"reason":"blurred"}"#) { #expect($0.status == .ok) }
            try await review(rejectedID, "approve", "{}") {
                try Self.expectProblem($0, .unprocessableContent)
            }
            try await review(rejectedID, "approve", #"{"reason":"sharp enough"}"#) { response in
                #expect(response.status == .ok)
                let outcome = try Self.object(response)
                #expect(outcome["id"] == .int(rejectedID))
                #expect(outcome["recorded_as"] == .int(rejectedID + 1))
                #expect(outcome["state"] == .string("accepted"))
                #expect(outcome["points_change"] == .int(0))  // a second visit earns nothing
            }
            try await review(rejectedID, "approve", #"{"reason":"sharp enough"}"#) {
                try Self.expectProblem($0, .conflict)
            }
        }
    }

    /// Guessing one player's password from one address: past the limit, 429 with Retry-After,
    /// before any bcrypt.
    @Test func signInAttemptsAreRateLimited() async throws {
        var limits = RateLimits()
        limits.signInPerNameAndAddress = RateLimit(perMinute: 1, burst: 3)
        try await app(limits: limits).test(.router) { client in
            _ = try await Self.register(client, "Ann Lee")
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<4 {
                try await client.execute(
                    uri: "/v1/sessions", method: .post, headers: Self.jsonHeaders,
                    body: Self.body(#"{"username":"ann lee","password":"guess guess"}"#)
                ) { response in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests {
                        try Self.expectProblem(response, .tooManyRequests)
                        #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                    }
                }
            }
            #expect(statuses == [.unauthorized, .unauthorized, .unauthorized, .tooManyRequests])
        }
    }

    /// Wrong passwords in a row for one name from one address back off: past
    /// `failuresBeforeBackOff`, the next attempt waits (429 with Retry-After) before its password
    /// is even checked, even when it is the right one (by default the first wait is a second).
    @Test func wrongPasswordsInARowBackOff() async throws {
        var limits = RateLimits()
        limits.failuresBeforeBackOff = 2
        // Waits longer than any test takes, so that a slow password hash cannot outlast one.
        (limits.firstBackOffSeconds, limits.maxBackOffSeconds) = (3600, 3600)
        try await app(limits: limits).test(.router) { client in
            _ = try await Self.register(client, "Ann Lee")
            var statuses: [HTTPResponse.Status] = []
            for password in ["guess one", "guess two", "tumbling dice"] {
                try await client.execute(
                    uri: "/v1/sessions", method: .post, headers: Self.jsonHeaders,
                    body: Self.body(#"{"username":"ann lee","password":"\#(password)"}"#)
                ) { response in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests {
                        try Self.expectProblem(response, .tooManyRequests)
                        #expect((3590...3600).contains(Int(response.headers[.retryAfter] ?? "") ?? 0))
                    }
                }
            }
            #expect(statuses == [.unauthorized, .unauthorized, .tooManyRequests])
        }
    }

    @Test func badBodiesGetOneProblemAndChangeNothing() async throws {
        try await app.test(.router) { client in
            let cases: [(HTTPFields, String, HTTPResponse.Status)] = [
                ([.contentType: "text/plain"], "{}", .unsupportedMediaType),
                (Self.jsonHeaders, "{not json", .badRequest),
                (Self.jsonHeaders, "[]", .badRequest),
                (
                    Self.jsonHeaders,
                    #"{"username":"Bo","email":"bo@example.org","password":"long enough","admin":true}"#,
                    .unprocessableContent
                ),
                (Self.jsonHeaders, #"{"username":"Bo","email":"bo@example.org"}"#, .unprocessableContent),
                (
                    Self.jsonHeaders, #"{"username":"Bo","email":"bo@example.org","password":"short"}"#,
                    .unprocessableContent
                ),
                (
                    Self.jsonHeaders,
                    #"{"username":"B\u202Eo","email":"bo@example.org","password":"long enough"}"#,
                    .unprocessableContent
                ),
                (
                    Self.jsonHeaders, #"{"username":"Bo","email":"not an address","password":"long enough"}"#,
                    .unprocessableContent
                ),
                (Self.jsonHeaders, String(repeating: " ", count: 70_000) + "{}", .contentTooLarge),
            ]
            for (headers, body, status) in cases {
                try await client.execute(
                    uri: "/v1/accounts", method: .post, headers: headers, body: Self.body(body)
                ) { response in
                    try Self.expectProblem(response, status)
                }
            }
        }
        #expect(try await store.players().isEmpty)
    }
}
