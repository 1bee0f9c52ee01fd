import Foundation
import HTTPTypes
import Hummingbird
import VSHAuthoring
import VSHCore
import VSHEngine
import VSHPhoto

/// The organisers' routes: hunts as drafts, validated as `vsh-master validate` validates them,
/// published as revisions that every instance on the database serves, and their history.
struct OrganiserController: Sendable {
    let store: any LeagueStore
    let authentication: Authentication
    let clock: @Sendable () -> Date
    /// GEOS validity, areas and overlaps for validation and warnings; nil: editing is unavailable.
    let geometry: (any GeometryOperations & Sendable)?
    /// Where uploaded hunt and stop pictures are kept (the league's photo store).
    let photos: any PhotoStore
    /// A private folder (0700) for uploads in progress.
    let uploads: String

    static let create = Endpoint(.post, "/v1/hunts")
    static let drafts = Endpoint(.get, "/v1/drafts")
    static let readDraft = Endpoint(.get, "/v1/hunts/{id}/draft")
    static let saveDraft = Endpoint(.put, "/v1/hunts/{id}/draft")
    static let dropDraft = Endpoint(.delete, "/v1/hunts/{id}/draft")
    static let publish = Endpoint(.post, "/v1/hunts/{id}/publish")
    static let revisions = Endpoint(.get, "/v1/hunts/{id}/revisions")
    static let huntImage = Endpoint(.put, "/v1/hunts/{id}/draft/image")
    static let stopImage = Endpoint(.put, "/v1/hunts/{id}/draft/stops/{stop}/image")
    static var endpoints: [Endpoint] {
        [create, drafts, readDraft, saveDraft, dropDraft, publish, revisions, huntImage, stopImage]
    }

    /// A hunt file's bytes at most (`HuntFile.maxFileBytes`).
    static let maxBody = HuntFile.maxFileBytes

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.create, use: create)
        router.on(Self.drafts, use: drafts)
        router.on(Self.readDraft, use: readDraft)
        router.on(Self.saveDraft, use: saveDraft)
        router.on(Self.dropDraft, use: dropDraft)
        router.on(Self.publish, use: publish)
        router.on(Self.revisions, use: revisions)
        router.on(Self.huntImage, use: putImage)
        router.on(Self.stopImage, use: putImage)
    }

    /// PUT /v1/hunts/{id}/draft/image and /draft/stops/{stop}/image (a JPEG or HEIC body) →
    /// `{hunt, image, saved_at}`: the picture drawn anew (upright, at most 1024 px, no metadata),
    /// kept in the league's photo store, and named in the draft (`pictures/<sha256>.jpg`), which
    /// starts from the published file when the hunt has no draft.
    @Sendable func putImage(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await organiser(request)
        let id = try context.parameters.require("id")
        let stop = context.parameters.get("stop")
        let start: [UInt8]
        if let draft = try await store.draft(huntID: id) {
            start = draft.bytes
        } else if let file = try await store.currentFiles().hunts[id] {
            start = file.bytes
        } else {
            throw Problem(.notFound, "Not found", "no hunt \"\(id.prefix(80))\"")
        }
        guard case .object(var root)? = try? JSONValue.parse(start) else {
            throw Problem(.conflict, "Draft unreadable", "the draft is not JSON: save the whole hunt first")
        }
        var features: [JSONValue] = []
        if case .array(let list)? = root["features"] { features = list }
        let stopIndex = stop.flatMap { wanted in
            features.firstIndex {
                if case .object(let f) = $0, case .string(wanted)? = f["id"] { return true }
                return false
            }
        }
        if let stop, stopIndex == nil {
            throw Problem(
                .notFound, "Not found", "the draft of \"\(id.prefix(80))\" has no stop \"\(stop.prefix(80))\""
            )
        }
        let picture = try await AvatarController.picture(in: request, folder: uploads) { bytes in
            try Avatar.fitted(from: bytes, folder: uploads, longest: PicturesController.imageSide)
        }
        let sha = SHA256.hex(picture)
        try await photos.put(picture, sha256: sha)
        let name = "pictures/\(sha).jpg"
        if let stopIndex, case .object(var feature) = features[stopIndex] {
            var properties: JSONObject = [:]
            if case .object(let existing)? = feature["properties"] { properties = existing }
            properties["image"] = .string(name)
            feature["properties"] = .object(properties)
            features[stopIndex] = .object(feature)
            root["features"] = .array(features)
        } else {
            var hunt: JSONObject = [:]
            if case .object(let existing)? = root["hunt"] { hunt = existing }
            hunt["image"] = .string(name)
            root["hunt"] = .object(hunt)
        }
        let draft = HuntDraft(
            huntID: id, bytes: Array(JSONValue.object(root).prettyText.utf8), savedAt: clock(),
            by: session.player.name)
        try await store.saveDraft(draft)
        return JSONBodies.response(
            .object([
                "hunt": .string(id), "image": .string(name),
                "saved_at": .string(RFC3339.format(draft.savedAt)),
            ]))
    }

    /// The session of an organiser.
    /// - Throws: `Problem` 401 without a valid token, 403 for players and moderators.
    func organiser(_ request: Request) async throws -> Session {
        try await authentication.requireOrganiser(request, to: "edit and publish hunts")
    }

    /// POST /v1/hunts (a hunt file) → 201 `{hunt, saved_at, warnings}`: a new hunt as a draft.
    @Sendable func create(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await organiser(request)
        let bytes = try await Self.body(request)
        let document = try? JSONValue.parse(bytes)
        guard let id = Self.huntID(of: document) else {
            throw Self.invalid([
                ("/hunt/id", "missing required field \"id\": the hunt's id, made of a-z, 0-9 and hyphens")
            ])
        }
        let published = try await store.hunt(id: id) != nil
        let drafted = try await store.draft(huntID: id) != nil
        if published || drafted {
            throw Problem(
                .conflict, "Hunt exists",
                "a hunt \"\(id)\" exists already: edit its draft (/v1/hunts/\(id)/draft)")
        }
        let warnings = try await check(bytes, document: document, id: id)
        let draft = HuntDraft(huntID: id, bytes: bytes, savedAt: clock(), by: session.player.name)
        try await store.saveDraft(draft)
        return JSONBodies.response(Self.saved(draft, warnings: warnings), status: .created)
    }

    /// GET /v1/drafts → `[{hunt, name, saved_at, by, revision}]`: every hunt with a draft, and
    /// the revision it is based on (null for a hunt never published).
    @Sendable func drafts(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await organiser(request)
        let latest = try await store.latestRevisions()
        var rows: [JSONValue] = []
        for id in try await store.draftIDs() {
            guard let draft = try await store.draft(huntID: id) else { continue }
            rows.append(
                .object([
                    "hunt": .string(id),
                    "name": .optional(Self.huntName(of: try? JSONValue.parse(draft.bytes))),
                    "saved_at": .string(RFC3339.format(draft.savedAt)), "by": .optional(draft.by),
                    "revision": latest[id].map { .int($0.revision) } ?? .null,
                ]))
        }
        return JSONBodies.response(.array(rows))
    }

    /// GET /v1/hunts/{id}/draft → the draft's hunt file (`X-Draft: saved`), or the published file
    /// as the starting point (`X-Draft: published`); 404 for neither.
    @Sendable func readDraft(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await organiser(request)
        let id = try context.parameters.require("id")
        let bytes: [UInt8]
        let state: String
        if let draft = try await store.draft(huntID: id) {
            (bytes, state) = (draft.bytes, "saved")
        } else if let file = try await store.currentFiles().hunts[id] {
            (bytes, state) = (file.bytes, "published")
        } else {
            throw Problem(.notFound, "Not found", "no hunt \"\(id.prefix(80))\"")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", HTTPField.Name("X-Draft")!: state,
                .cacheControl: "no-store",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// PUT /v1/hunts/{id}/draft (the whole hunt file) → `{hunt, saved_at, warnings}`.
    @Sendable func saveDraft(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await organiser(request)
        let id = try context.parameters.require("id")
        let bytes = try await Self.body(request)
        let document = try? JSONValue.parse(bytes)
        if try await store.hunt(id: id) == nil, try await store.draft(huntID: id) == nil {
            throw Problem(.notFound, "Not found", "no hunt \"\(id.prefix(80))\" (POST /v1/hunts makes one)")
        }
        if let named = Self.huntID(of: document), named != id {
            throw Self.invalid([("/hunt/id", "is \"\(named)\"; this draft is hunt \"\(id)\"")])
        }
        let warnings = try await check(bytes, document: document, id: id)
        let draft = HuntDraft(huntID: id, bytes: bytes, savedAt: clock(), by: session.player.name)
        try await store.saveDraft(draft)
        return JSONBodies.response(Self.saved(draft, warnings: warnings))
    }

    /// DELETE /v1/hunts/{id}/draft → 204; 404 without a draft.
    @Sendable func dropDraft(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await organiser(request)
        let id = try context.parameters.require("id")
        guard try await store.dropDraft(huntID: id) else {
            throw Problem(.notFound, "Not found", "hunt \"\(id.prefix(80))\" has no draft")
        }
        return Response(status: .noContent)
    }

    /// POST /v1/hunts/{id}/publish → `{hunt, revision, published_at}`: the draft, validated again
    /// with the published hunts, becomes the hunt's next revision.
    @Sendable func publish(_ request: Request, context: VSHRequestContext) async throws -> Response {
        let session = try await organiser(request)
        let id = try context.parameters.require("id")
        guard let draft = try await store.draft(huntID: id) else {
            throw Problem(.conflict, "No draft", "hunt \"\(id.prefix(80))\" has no draft to publish")
        }
        _ = try await check(draft.bytes, document: try? JSONValue.parse(draft.bytes), id: id)
        let revision: HuntRevision?
        do {
            revision = try await store.publishFromConsole(
                huntID: id, bytes: draft.bytes, by: session.player.name, at: clock())
        } catch let errors as HuntFileErrors {
            throw Self.invalid(Self.problems(errors, document: try? JSONValue.parse(draft.bytes), id: id))
        }
        return JSONBodies.response(
            .object([
                "hunt": .string(id), "revision": revision.map { .int($0.revision) } ?? .null,
                "published_at": .optional(revision.map { RFC3339.format($0.publishedAt) }),
            ]))
    }

    /// GET /v1/hunts/{id}/revisions → `[{revision, published_at, by, source}]`, newest first.
    @Sendable func revisions(_ request: Request, context: VSHRequestContext) async throws -> Response {
        _ = try await organiser(request)
        let id = try context.parameters.require("id")
        let revisions = try await store.revisions(huntID: id)
        if revisions.isEmpty, try await store.hunt(id: id) == nil, try await store.draft(huntID: id) == nil {
            throw Problem(.notFound, "Not found", "no hunt \"\(id.prefix(80))\"")
        }
        return JSONBodies.response(
            .array(
                revisions.map {
                    .object([
                        "revision": .int($0.revision),
                        "published_at": .string(RFC3339.format($0.publishedAt)),
                        "by": .optional($0.by), "source": .string($0.source.rawValue),
                    ])
                }))
    }

    // MARK: validation

    /// Validates a hunt file with every other published hunt, as `vsh-master validate` does.
    /// - Returns: the warnings, `[{pointer, detail}]`.
    /// - Throws: `Problem` 422 with `errors: [{pointer, detail}]` listing every problem.
    func check(_ bytes: [UInt8], document: JSONValue?, id: String) async throws -> JSONValue {
        guard let geometry else {
            throw Problem(
                .serviceUnavailable, "Unavailable",
                "this server cannot check hunt geometry, so it edits no hunts")
        }
        let current = try await store.currentFiles()
        var sources = current.hunts.filter { $0.key != id }.map {
            HuntCatalog.Source(path: $0.value.name, expectedID: $0.key, bytes: $0.value.bytes)
        }
        sources.append(HuntCatalog.Source(path: "\(id).geojson", expectedID: id, bytes: bytes))
        let badges = current.badges.map {
            HuntCatalog.Source(path: $0.name, expectedID: "badges", bytes: $0.bytes)
        }
        switch HuntCatalog.build(sources, badges: badges, inspector: geometry) {
        case .failure(let errors):
            throw Self.invalid(Self.problems(errors, document: document, id: id))
        case .success(let catalog):
            let hunts = catalog.hunts.filter { $0.id == id }
            return .array(
                try HuntLint.findings(hunts, inspector: geometry).map {
                    .object([
                        "pointer": .string(HuntFilePointer.of($0, in: document)), "detail": .string($0.text),
                    ])
                })
        }
    }

    /// Each problem with its pointer into this hunt's file; a problem in another file ("" pointer)
    /// names that file.
    static func problems(_ errors: HuntFileErrors, document: JSONValue?, id: String) -> [(String, String)] {
        errors.errors.map { error in
            guard error.file == "\(id).geojson" else { return ("", error.description) }
            let stop = error.stop.map { "stop \"\($0)\": " } ?? ""
            return (HuntFilePointer.of(error, in: document), stop + error.problem.description)
        }
    }

    /// 422 with `errors: [{pointer, detail}]`.
    static func invalid(_ problems: [(String, String)]) -> Problem {
        var problem = Problem(
            .unprocessableContent, "Invalid hunt",
            problems.count == 1
                ? problems[0].1 : "the hunt has \(problems.count) problems; each is listed in errors")
        problem.errors = problems.map { .object(["pointer": .string($0.0), "detail": .string($0.1)]) }
        return problem
    }

    /// The request's body, up to a hunt file's limit.
    static func body(_ request: Request) async throws -> [UInt8] {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") || type.hasPrefix("application/geo+json") else {
            throw Problem(
                .unsupportedMediaType, "Unsupported media type", "send the hunt file as application/json")
        }
        do {
            return Array(try await request.body.collect(upTo: maxBody).readableBytesView)
        } catch {
            throw Problem(.contentTooLarge, "Too large", "a hunt file is at most \(maxBody) bytes")
        }
    }

    static func huntID(of document: JSONValue?) -> String? {
        guard case .object(let object)? = document, case .object(let hunt)? = object["hunt"],
            case .string(let id)? = hunt["id"], !id.isEmpty
        else { return nil }
        return id
    }

    static func huntName(of document: JSONValue?) -> String? {
        guard case .object(let object)? = document, case .object(let hunt)? = object["hunt"],
            case .string(let name)? = hunt["name"]
        else { return nil }
        return name
    }

    static func saved(_ draft: HuntDraft, warnings: JSONValue) -> JSONValue {
        .object([
            "hunt": .string(draft.huntID), "saved_at": .string(RFC3339.format(draft.savedAt)),
            "warnings": warnings,
        ])
    }
}
