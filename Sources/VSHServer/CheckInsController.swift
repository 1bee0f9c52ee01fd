import Foundation
import HTTPTypes
import Hummingbird
import VSHCore
import VSHEngine
import VSHPhoto

/// Check-ins over HTTP: the same pipeline (`CheckInService`) and the same verdicts as `vsh checkin`,
/// with the server's clock as the received time.
struct CheckInsController: Sendable {
    let store: any LeagueStore
    let photos: any PhotoStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    /// A private folder (0700) for uploads in progress.
    let uploads: String
    let limiter: RateLimiter
    let limits: RateLimits
    /// Where check-ins are recorded, grouped into shared transactions.
    let group: GroupCommit
    /// Sends a player their collage when they complete a hunt (nil: no e-mail).
    let mailer: Mailer?
    /// Tells open pages of each new check-in (`event: checkin`); nil in tests that build no stream.
    var events: LeagueEvents? = nil

    static let checkIn = Endpoint(.post, "/v1/checkins")
    static let mine = Endpoint(.get, "/v1/me/checkins")
    static var endpoints: [Endpoint] { [checkIn, mine] }
    static let fields: Set<String> = [
        "lat", "lon", "accuracy_m", "fix_time", "hunt", "code", "stop", "answer",
    ]

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.checkIn, use: checkIn)
        router.on(Self.mine, use: mine)
    }

    /// POST /v1/checkins (multipart/form-data: `photo`, the device fix `lat`, `lon`, `fix_time` and
    /// `accuracy_m`, or both; optional `hunt`) → 201 with the verdict object of `vsh checkin --json`.
    /// With `Idempotency-Key`, a retry of the same request gets the first answer and records nothing;
    /// the key reused for a different request is a 422. Check-ins that arrive together are recorded
    /// in one transaction (`GroupCommit`).
    @Sendable func checkIn(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let key = try Self.idempotencyKey(request)
        try await limiter.take("check-in|\(context.clientAddress)", limits.checkInsPerAddress)
        try await limiter.take("check-in-player|\(session.player.id)", limits.checkInsPerPlayer)
        let form = try await MultipartForm.read(
            request, fileField: "photo", fields: Self.fields, fileLimit: PhotoReader.maxFileBytes,
            folder: uploads)
        defer { form.discard() }
        let fields = form.fields
        let photo = try form.fileContents()
        if let photo {
            try await limiter.take(
                "photo-bytes|\(session.player.id)", limits.photoBytesPerPlayer, cost: Double(photo.count))
        }
        // Hashed once: for the fingerprint and as the photo's identity.
        let photoSHA256 = photo.map { SHA256.hex($0) }
        let fingerprint = Self.fingerprint(photoSHA256: photoSHA256, fields: fields)
        // A photo's retry key is looked up first: a retry then neither decodes nor keeps the photo
        // again. A check-in without a photo is read at once, without that read of the database
        // (retries are rare, and reading the request costs less): the group's transaction looks
        // the key up and answers a retry with the first answer, and a retry that no longer goes
        // through as it was sent (its stop's code changed, its hunt was deleted) gets it here.
        func earlier() async throws -> IdempotentAnswer? {
            guard let key else { return nil }
            return try await store.idempotentAnswer(player: session.player.id, key: key)
        }
        if photo != nil, let earlier = try await earlier() {
            return try Self.replay(earlier, fingerprint: fingerprint)
        }
        var checkIn: CheckInRequest
        do {
            checkIn = try await checkInRequest(
                session: session, fields: fields, photo: photo, photoSHA256: photoSHA256)
        } catch {
            if photo == nil, let earlier = try await earlier() {
                return try Self.replay(earlier, fingerprint: fingerprint)
            }
            throw error
        }
        checkIn.idempotency = key.map {
            IdempotencyClaim(key: $0, fingerprint: fingerprint) { CheckInJSON.text($0) }
        }
        switch try await group.submit(checkIn) {
        case .recorded(let recorded, let answer):
            mailCollage(for: recorded, player: session.player)
            events?.checkedIn(recorded.id)
            guard let answer else {
                return JSONBodies.response(CheckInJSON.checkIn(recorded), status: .created)
            }
            return Self.answer(answer, replayed: false)
        case .repeated(let earlier):
            return try Self.replay(earlier, fingerprint: fingerprint)
        }
    }

    /// The check-in a request carries, read and placed: its evidence, its hunt, a code or a named
    /// stop matched among the hunts the player sees, and the answer to the stop's question.
    private func checkInRequest(
        session: Session, fields: [String: String], photo: [UInt8]?, photoSHA256: String?
    ) async throws -> CheckInRequest {
        let hunt = fields["hunt"].flatMap { $0.isEmpty ? nil : $0 }
        let hasFix = ["lat", "lon", "fix_time", "accuracy_m"].contains { fields[$0] != nil }
        let code = fields["code"].flatMap { $0.trimmingWhiteSpace().isEmpty ? nil : $0 }
        let stopID = fields["stop"].flatMap { $0.isEmpty ? nil : $0 }
        let answer = fields["answer"].flatMap {
            $0.trimmingWhiteSpace(newlines: true).isEmpty ? nil : $0
        }
        if let answer, answer.count > StopQuestion.maxLength {
            throw Problem(
                .unprocessableContent, "Invalid answer",
                "answer: longer than \(StopQuestion.maxLength) characters")
        }
        // A code or a named stop is matched among the hunts this player sees (`CodePlacement`).
        let hunts = code == nil && stopID == nil ? [] : try await visibleHunts(session)
        // Matched before the photo is kept, so that an unknown stop or code burns nothing.
        let codePlaces = try CodePlacement.codePlaces(
            stopID: stopID, code: code, in: hunts, hasDeviceFix: hasFix)
        let service = CheckInService(store: store, photos: photos)
        let now = clock()
        var checkIn: CheckInRequest
        switch (photo, hasFix) {
        case (let bytes?, let hasFix):
            let fix = try hasFix ? Self.deviceFix(fields) : nil
            let (submission, photoFile) = try await service.submission(
                player: session.player.id, photo: bytes, photoSHA256: photoSHA256, name: "photo",
                deviceFix: fix.map { ($0.position, $0.time, $0.accuracy) }, huntID: hunt, now: now,
                playerKnown: true, requirePosition: !codePlaces)
            checkIn = CheckInRequest(submission: submission, photoFile: photoFile)
        case (nil, true):
            let fix = try Self.deviceFix(fields)
            let submission = try await service.submission(
                player: session.player.id, position: fix.position, time: fix.time,
                accuracyMeters: fix.accuracy,
                huntID: hunt, now: now, playerKnown: true)
            checkIn = CheckInRequest(submission: submission, photoFile: nil)
        case (nil, false):
            guard let code else {
                throw Problem(
                    .unprocessableContent, "Missing evidence",
                    "send a photo, lat, lon, fix_time and accuracy_m, or both (or the stop's code)")
            }
            let submission = try CodePlacement.codeOnly(
                player: session.player.id, stopID: stopID, code: code, huntID: hunt, in: hunts, now: now)
            checkIn = CheckInRequest(submission: submission, photoFile: nil)
        }
        if code != nil || stopID != nil {
            checkIn.submission = try CodePlacement.finish(
                checkIn.submission, stopID: stopID, code: code, in: hunts)
        }
        checkIn.submission.answer = answer
        return checkIn
    }

    /// The hunts `session`'s player sees: the public ones, and the private ones they joined (every
    /// one for organisers and moderators).
    func visibleHunts(_ session: Session) async throws -> [Hunt] {
        let all = try await store.hunts().map(\.hunt)
        guard all.contains(where: { $0.visibility == .private }) else { return all }
        if session.role == .organiser || session.role == .moderator { return all }
        let joined = try await store.joinedHunts(player: session.player.id)
        return all.filter { $0.visibility == .public || joined.contains($0.id) }
    }

    /// On a hunt's completion, the player's collage of it by e-mail (the original app's "collage by
    /// email"), made and sent after the answer; nothing without `--smtp` or an address.
    func mailCollage(for recorded: RecordedCheckIn, player: PlayerRecord) {
        guard let mailer, let email = player.email,
            let completed = recorded.awards.first(where: { $0.kind == .bonus })
        else { return }
        let (store, photos, folder) = (self.store, self.photos, uploads)
        Task {
            guard
                let collage = try? await Collage.make(
                    player: player, hunt: completed.huntID, scores: store, photos: photos)
            else { return }
            let path = folder + "/collage-\(UUID().uuidString).jpg"
            defer { unlink(path) }
            guard (try? JPEGCodec.write(collage.image, to: path)) != nil,
                let data = FileManager.default.contents(atPath: path)
            else { return }
            let hunt = (try? await store.hunt(id: completed.huntID))?.hunt.name ?? completed.huntID
            await mailer.enqueue(
                Mail(
                    to: email, subject: "You completed \(hunt)!",
                    text: """
                        Well done, \(player.name): you completed \(hunt) and earned its \(completed.points) bonus points.
                        Your collage of the hunt is attached.
                        """,
                    attachment: ("collage-\(completed.huntID).jpg", "image/jpeg", [UInt8](data))),
                note: "collage for player #\(player.id)")
        }
    }

    /// The `Idempotency-Key` header: 1 to 255 visible ASCII characters, or nil when absent.
    static func idempotencyKey(_ request: Request) throws -> String? {
        let values = request.headers[values: HTTPField.Name("Idempotency-Key")!]
        guard let key = values.first else { return nil }
        guard values.count == 1, (1...255).contains(key.utf8.count),
            key.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw Problem(
                .badRequest, "Invalid Idempotency-Key",
                "Idempotency-Key must be one value of 1 to 255 visible ASCII characters")
        }
        return key
    }

    /// A digest of what the request carried: the photo's SHA-256 and the fields, sorted.
    static func fingerprint(photoSHA256: String?, fields: [String: String]) -> String {
        var hash = SHA256()
        hash.update(Array((photoSHA256 ?? "-").utf8))
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            hash.update(Array("\n\(key)=\(value)".utf8))
        }
        return hash.finalizeHex()
    }

    /// The first answer again, or 422 when the key was used for a different request.
    static func replay(_ earlier: IdempotentAnswer, fingerprint: String) throws -> Response {
        guard earlier.fingerprint == fingerprint else {
            throw Problem(
                .unprocessableContent, "Idempotency-Key reused",
                "this Idempotency-Key was used for a different check-in (#\(earlier.checkInID))")
        }
        return answer(earlier.answer, replayed: true)
    }

    static func answer(_ text: String, replayed: Bool) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if replayed { headers[HTTPField.Name("Idempotent-Replayed")!] = "true" }
        return Response(
            status: .created, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The device fix of a form: `lat` and `lon` in decimal degrees, `fix_time` in RFC 3339, `accuracy_m` in metres.
    static func deviceFix(_ fields: [String: String]) throws -> (
        position: Coordinate, time: Date, accuracy: Double
    ) {
        func number(_ key: String) throws -> Double {
            guard let text = fields[key] else {
                throw Problem(.unprocessableContent, "Missing field", "\"\(key)\" is required")
            }
            guard let value = Double(text.trimmingWhiteSpace()), value.isFinite else {
                throw Problem(.unprocessableContent, "Invalid field", "\"\(key)\" must be a number")
            }
            return value
        }
        let latitude = try number("lat")
        let longitude = try number("lon")
        let accuracy = try number("accuracy_m")
        guard accuracy.isFinite, (0...1_000_000).contains(accuracy) else {
            throw Problem(
                .unprocessableContent, "Invalid field", "\"accuracy_m\" must be 0 to 1000000 metres")
        }
        guard let position = try? Coordinate(latitude: latitude, longitude: longitude) else {
            throw Problem(.unprocessableContent, "Invalid field", "lat and lon must be degrees in range")
        }
        guard let text = fields["fix_time"], let time = RFC3339.parse(text) else {
            throw Problem(.unprocessableContent, "Invalid field", "\"fix_time\" must be an RFC 3339 time")
        }
        return (position, time, accuracy)
    }

    /// GET /v1/me/checkins → own check-ins, newest first (the latest 100), with their state, points and
    /// the reason of a moderator's decision (`reason`, null when none decided it).
    @Sendable func mine(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await authentication.require(request)
        let profile = try await store.profile(player: session.player.id, recent: 100)
        return JSONBodies.response(
            .array(
                profile.recent.map { c in
                    .object([
                        "id": .int(Int(c.id)), "received_at": .string(RFC3339.format(c.receivedAt)),
                        "hunt": .optional(c.huntID), "stop": .optional(c.stopID),
                        "stop_name": .optional(c.stopName),
                        "state": .string(c.state.rawValue), "points": .int(c.points),
                        "has_photo": .bool(c.hasPhoto),
                        "reason": .optional(c.reason),
                    ])
                }))
    }
}
