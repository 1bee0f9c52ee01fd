import HTTPTypes
import Hummingbird
import NIOCore
public import VSHCore

/// `GET /openapi.json`: the OpenAPI 3.1 document of every endpoint the service answers, with the
/// shapes of its bodies and answers. A test holds its paths to `Endpoint.all`, and schemathesis
/// holds the service's answers to it.
public enum OpenAPIDocument {
    static let endpoint = Endpoint(.get, "/openapi.json")

    static func add(to router: Router<VSHRequestContext>) {
        let text = document.compactText
        router.on(endpoint) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }

    // MARK: building blocks

    static func ref(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/schemas/\(name)")])
    }
    static let string: JSONValue = .object(["type": .string("string")])
    static let nullableString: JSONValue = .object(["type": .array([.string("string"), .string("null")])])
    static let integer: JSONValue = .object(["type": .string("integer")])
    static let nullableInteger: JSONValue = .object(["type": .array([.string("integer"), .string("null")])])
    static let number: JSONValue = .object(["type": .string("number")])
    static let nullableNumber: JSONValue = .object(["type": .array([.string("number"), .string("null")])])
    static let boolean: JSONValue = .object(["type": .string("boolean")])
    static let dateTime: JSONValue = .object(["type": .string("string"), "format": .string("date-time")])
    static let nullableDateTime: JSONValue = .object([
        "type": .array([.string("string"), .string("null")]), "format": .string("date-time"),
    ])

    /// The fields every hunt in the feed has (`translations` only when the file gives them).
    static let huntFields = [
        "id", "name", "description", "difficulty", "bonus_points", "ordered", "timezone", "starts_at",
        "ends_at",
        "max_accuracy_m", "max_photo_age_s", "tolerance_m", "image", "total_points", "stops",
    ]

    static func object(_ properties: [(String, JSONValue)], required: [String]? = nil) -> JSONValue {
        .object([
            "type": .string("object"),
            "properties": .object(JSONObject(properties.map { (key: $0.0, value: $0.1) })),
            "required": .array((required ?? properties.map(\.0)).map(JSONValue.string)),
        ])
    }

    static func array(_ items: JSONValue) -> JSONValue {
        .object(["type": .string("array"), "items": items])
    }

    static func content(_ schema: JSONValue, type: String = "application/json") -> JSONValue {
        .object([type: .object(["schema": schema])])
    }

    static func answer(_ description: String, _ schema: JSONValue? = nil, type: String = "application/json")
        -> JSONValue
    {
        var object: JSONObject = ["description": .string(description)]
        if let schema { object["content"] = content(schema, type: type) }
        return .object(object)
    }

    static func jpeg(_ description: String) -> JSONValue {
        .object([
            "description": .string(description),
            "content": .object([
                "image/jpeg": .object([
                    "schema": .object(["type": .string("string"), "format": .string("binary")])
                ])
            ]),
        ])
    }

    static func picture(_ description: String) -> JSONValue {
        let binary: JSONValue = .object([
            "schema": .object(["type": .string("string"), "format": .string("binary")])
        ])
        return .object([
            "description": .string(description),
            "content": .object([
                "image/jpeg": binary, "image/png": binary, "image/webp": binary, "image/gif": binary,
            ]),
        ])
    }

    static func problem(_ description: String) -> JSONValue {
        answer(description, ref("Problem"), type: "application/problem+json")
    }

    static func operation(
        _ id: String, _ summary: String, responses: [(String, JSONValue)], body: JSONValue? = nil,
        parameters: [JSONValue] = [], authenticated: Bool = false
    ) -> JSONValue {
        var object: JSONObject = [
            "operationId": .string(id), "summary": .string(summary),
            "responses": .object(
                JSONObject(
                    (responses + [("default", problem("Any other problem"))]).map { (key: $0.0, value: $0.1) }
                )),
        ]
        if let body {
            object["requestBody"] = .object(["required": .bool(true), "content": content(body)])
        }
        if !parameters.isEmpty { object["parameters"] = .array(parameters) }
        if authenticated { object["security"] = .array([.object(["bearer": .array([])])]) }
        return .object(object)
    }

    static func parameter(_ name: String, in place: String, _ schema: JSONValue, required: Bool = false)
        -> JSONValue
    {
        .object([
            "name": .string(name), "in": .string(place), "required": .bool(required || place == "path"),
            "schema": schema,
        ])
    }

    static let tooMany: JSONValue = .object([
        "description": .string("Too many requests: wait the seconds of Retry-After"),
        "headers": .object(["Retry-After": .object(["schema": integer])]),
        "content": content(ref("Problem"), type: "application/problem+json"),
    ])

    static let badBody: [(String, JSONValue)] = [
        ("400", problem("Malformed JSON")), ("413", problem("Body over 64 KiB")),
        ("415", problem("Not application/json")), ("422", problem("A field missing, unknown or invalid")),
    ]

    /// A hunt file's body: 413 past its limit, 422 with every problem and its JSON Pointer.
    static let huntFileBody: [(String, JSONValue)] = [
        ("413", problem("A hunt file over 16 MiB")), ("415", problem("Not application/json")),
        (
            "422",
            answer("Every problem of the hunt file", ref("HuntProblems"), type: "application/problem+json")
        ),
    ]

    // MARK: the document

    static let schemas: JSONValue = .object([
        "Problem": object([("type", string), ("title", string), ("status", integer), ("detail", string)]),
        "HuntProblems": object([
            ("type", string), ("title", string), ("status", integer), ("detail", string),
            ("errors", array(ref("Pointed"))),
        ]),
        "Pointed": object([("pointer", string), ("detail", string)]),
        "PictureSaved": object([("hunt", string), ("image", string), ("saved_at", dateTime)]),
        "DraftSaved": object([("hunt", string), ("saved_at", dateTime), ("warnings", array(ref("Pointed")))]),
        "Announcement": object(
            [
                ("id", integer), ("hunt", .object(["type": .array([.string("string"), .string("null")])])),
                ("text", string), ("by", string), ("at", string),
            ], required: ["id", "hunt", "text", "by", "at"]),
        "Draft": object([
            ("hunt", string), ("name", nullableString), ("saved_at", dateTime), ("by", nullableString),
            ("revision", .object(["type": .array([.string("integer"), .string("null")])])),
        ]),
        "Published": object([
            ("hunt", string), ("revision", integer), ("published_at", dateTime),
        ]),
        "Revision": object([
            ("revision", integer), ("published_at", dateTime), ("by", nullableString),
            (
                "source",
                .object(["type": .string("string"), "enum": .array([.string("console"), .string("files")])])
            ),
        ]),
        "Player": object([("id", integer), ("username", string)]),
        "Session": object([("player", ref("Player")), ("token", string), ("expires_at", dateTime)]),
        "Registration": object(
            [("username", string), ("email", string), ("password", string)]
        ).merging(["additionalProperties": .bool(false)]),
        "SignIn": object([
            (
                "username",
                .object([
                    "type": .string("string"),
                    "description": .string(
                        "the player's name, or their e-mail address when no other player has it"),
                ])
            ), ("password", string),
        ]).merging(["additionalProperties": .bool(false)]),
        "ResetRequest": object([("email", string)]).merging(["additionalProperties": .bool(false)]),
        "ResetAccepted": object([("status", string)]),
        "NewPassword": object([("password", string)]).merging(["additionalProperties": .bool(false)]),
        "AccountChange": object(
            [("current_password", string), ("email", string), ("password", string)],
            required: ["current_password"]
        ).merging(["additionalProperties": .bool(false)]),
        "AccountChanged": object([
            ("player", ref("Player")), ("email", nullableString), ("token", nullableString),
            ("expires_at", nullableDateTime),
        ]),
        "Hunt": object(
            [
                ("id", string), ("name", string), ("description", string), ("difficulty", string),
                ("bonus_points", integer), ("ordered", boolean), ("timezone", string),
                ("starts_at", nullableDateTime),
                ("ends_at", nullableDateTime), ("max_accuracy_m", number), ("max_photo_age_s", number),
                ("tolerance_m", number), ("image", nullableString), ("total_points", integer),
                ("stops", integer),
                // Only when the file gives the hunt's name in other languages.
                ("translations", .object(["type": .string("object")])),
            ], required: Self.huntFields),
        "HuntFile": object([
            ("type", string), ("hunt", .object(["type": .string("object")])),
            ("features", array(.object(["type": .string("object")]))),
        ]),
        "LeaderboardRow": object([
            ("rank", integer), ("player", string), ("player_id", integer), ("points", integer),
            ("hunts_completed", integer), ("stops_visited", integer), ("badges", integer),
            ("avatar_url", nullableString),
        ]),
        "TeamRow": object([
            ("rank", integer), ("team", string), ("team_id", integer), ("points", integer),
            ("stops_visited", integer), ("completed", boolean), ("members", array(string)),
        ]),
        "TeamSummary": object(
            [
                ("id", integer), ("name", string), ("members", array(string)), ("join_code", string),
            ], required: ["id", "name", "members"]),
        "Profile": object(
            [
                ("name", string), ("player_id", integer), ("created_at", dateTime), ("points", integer),
                ("stops_visited", integer), ("hunts_completed", integer),
                (
                    "hunts",
                    array(
                        object([
                            ("hunt", string), ("name", string), ("visited", integer), ("total", integer),
                            ("completed_at", nullableDateTime),
                        ]))
                ),
                (
                    "badges",
                    array(
                        object([
                            ("badge", string), ("name", string), ("points", integer), ("earned_at", dateTime),
                            ("checkin", integer),
                        ]))
                ),
                (
                    "recent",
                    array(
                        object([
                            ("id", integer), ("received_at", dateTime), ("hunt", nullableString),
                            ("stop", nullableString),
                            ("stop_name", nullableString), ("state", string), ("points", integer),
                        ]))
                ),
                ("avatar_url", nullableString),
                (
                    "adjustments",
                    array(
                        object([
                            ("points", integer), ("reason", string), ("hunt", nullableString), ("by", string),
                            ("at", dateTime),
                        ]))
                ),
            ], required: ["name", "player_id", "points"]),
        "Adjustment": object(
            [
                ("id", integer), ("player", nullableString),
                ("team", object([("id", integer), ("name", nullableString)])), ("hunt", nullableString),
                ("points", integer), ("reason", string), ("by", string), ("at", dateTime),
            ], required: ["id", "hunt", "points", "reason", "by", "at"]),
        "Me": object([
            ("name", string), ("player_id", integer), ("email", nullableString), ("role", string),
            ("points", integer),
        ]),
        "Health": object([("status", string)]),
        "CheckIn": object(
            [
                ("verdict", string), ("id", integer), ("player", string), ("player_id", integer),
                ("hunt", nullableString),
                ("stop", nullableString), ("stop_name", nullableString), ("points", integer),
                ("rules", array(object([("rule", string), ("result", string), ("detail", string)]))),
                ("fix", .object(["type": .array([.string("object"), .string("null")])])),
                ("awards", array(.object(["type": .string("object")]))),
                ("answer", object([("right", boolean), ("tries_left", integer)])),
            ],
            required: [
                "verdict", "id", "player", "player_id", "hunt", "stop", "stop_name", "points", "rules", "fix",
                "awards",
            ]),
        "CheckInForm": .object([
            "type": .string("object"),
            "properties": .object([
                "photo": .object(["type": .string("string"), "format": .string("binary")]),
                "lat": number, "lon": number, "accuracy_m": number, "fix_time": dateTime, "hunt": string,
                "code": string, "stop": string, "answer": string,
            ]),
            "additionalProperties": .bool(false),
        ]),
        "Pending": object([
            ("id", integer), ("player", string), ("player_id", integer), ("received_at", dateTime),
            ("hunt", nullableString),
            ("stop", nullableString), ("stop_name", nullableString), ("reasons", array(string)),
            ("lat", nullableNumber), ("lon", nullableNumber), ("accuracy_m", nullableNumber),
            ("has_photo", boolean), ("fix_time", nullableDateTime),
        ]),
        "Decision": object(
            [("reason", string), ("override", .object(["type": .string("boolean")]))], required: []
        ).merging(["additionalProperties": .bool(false)]
        ),
        "RejectDecision": object([("reason", string)]).merging(["additionalProperties": .bool(false)]),
        "ReviewOutcome": object(
            [
                ("id", integer), ("player", string), ("state", string), ("points_change", integer),
                ("player_points", integer), ("recorded_as", integer),
            ], required: ["id", "player", "state", "points_change", "player_points"]),
        "MyCheckIn": object([
            ("id", integer), ("received_at", dateTime), ("hunt", nullableString), ("stop", nullableString),
            ("stop_name", nullableString), ("state", string), ("points", integer), ("has_photo", boolean),
            ("reason", nullableString),
        ]),
    ])

    static let paths: JSONValue = .object([
        "/healthz": .object([
            "get": operation(
                "health", "200 when the database answers",
                responses: [
                    ("200", answer("Healthy", ref("Health"))), ("503", problem("The database is busy")),
                ])
        ]),
        "/openapi.json": .object([
            "get": operation(
                "openapi", "This document",
                responses: [("200", answer("OpenAPI 3.1", .object(["type": .string("object")])))])
        ]),
        "/v1/accounts": .object([
            "post": operation(
                "register", "Register; answers a session",
                responses: [
                    ("201", answer("Registered and signed in", ref("Session"))),
                    ("409", problem("The name is taken")), ("429", tooMany),
                ]
                    + badBody, body: ref("Registration"))
        ]),
        "/v1/sessions": .object([
            "post": operation(
                "signIn", "Sign in",
                responses: [
                    ("201", answer("Signed in", ref("Session"))),
                    ("401", problem("Wrong name or password (the same answer)")), ("429", tooMany),
                    ("503", problem("Too many password checks waiting: try again after Retry-After")),
                ] + badBody, body: ref("SignIn"))
        ]),
        "/v1/sessions/current": .object([
            "delete": operation(
                "signOut", "Sign out: the token stops working",
                responses: [("204", answer("Signed out")), ("401", problem("No valid token"))],
                authenticated: true)
        ]),
        "/v1/me": .object([
            "get": operation(
                "me", "One's own profile, with e-mail and role",
                responses: [("200", answer("The profile", ref("Me"))), ("401", problem("No valid token"))],
                authenticated: true),
            "patch": operation(
                "updateMe",
                "Change one's e-mail address or password; the current password is required. A new password ends every session and the answer carries a fresh token",
                responses: [
                    ("200", answer("Changed", ref("AccountChanged"))), ("401", problem("No valid token")),
                    ("403", problem("The current password is wrong")), ("429", tooMany),
                ] + badBody, body: ref("AccountChange"), authenticated: true),
            "delete": operation(
                "eraseMe",
                "Erase one's account (the password is required): name, e-mail address, password, picture, sessions and photos; the points stay on the boards as \"Erased player #ID\"",
                responses: [
                    ("204", .object(["description": .string("Erased")])), ("401", problem("No valid token")),
                    ("403", problem("The password is wrong")), ("429", tooMany),
                ] + badBody, body: object([("password", string)], required: ["password"]), authenticated: true
            ),
        ]),
        "/v1/password-resets": .object([
            "post": operation(
                "requestPasswordReset",
                "E-mail a single-use reset link to the players with this address; the same answer whether or not any has it",
                responses: [
                    ("202", answer("Accepted (whatever the address)", ref("ResetAccepted"))),
                    ("429", tooMany),
                    ("503", problem("The server has no e-mail (--smtp)")),
                ] + badBody, body: ref("ResetRequest"))
        ]),
        "/v1/password-resets/{token}": .object([
            "post": operation(
                "resetPassword",
                "Set a new password with the token of a reset message: works once, before it expires; every session ends",
                responses: [
                    ("204", .object(["description": .string("The password is changed")])),
                    ("404", problem("An unknown, used or expired token")), ("429", tooMany),
                ] + badBody, body: ref("NewPassword"), parameters: [parameter("token", in: "path", string)])
        ]),
        "/v1/me/avatar": .object([
            "put": operation(
                "putAvatar",
                "Set one's profile picture (a JPEG or HEIC photo, judged by its bytes): kept re-encoded (256 x 256, upright) without any metadata",
                responses: [
                    ("204", .object(["description": .string("Stored")])), ("401", problem("No valid token")),
                    ("413", problem("A picture over 64 MiB")),
                    ("415", problem("Not an image type, or bytes that are neither JPEG nor HEIC")),
                    ("422", problem("An empty or unreadable picture, or one over the decoding budget")),
                    ("429", tooMany),
                ], authenticated: true
            ).merging([
                "requestBody": .object([
                    "required": .bool(true),
                    "content": .object([
                        "image/jpeg": .object([
                            "schema": .object(["type": .string("string"), "format": .string("binary")])
                        ])
                    ]),
                ])
            ])
        ]),
        "/v1/checkins/{id}/photo": .object([
            "get": operation(
                "checkInPhoto",
                "A check-in's photo, upright and square (480 px, or 160 px with size=thumb), drawn anew without metadata: for its player and moderators, and a featured photo that counts for whoever may see its hunt",
                responses: [
                    ("200", jpeg("The photo")), ("401", problem("No valid token")),
                    ("404", problem("No such check-in, no photo, or not yours")),
                    ("422", problem("The stored photo cannot be decoded")),
                ],
                parameters: [
                    parameter("id", in: "path", integer),
                    parameter(
                        "size", in: "query",
                        .object(["type": .string("string"), "enum": .array([.string("thumb")])])),
                ], authenticated: true)
        ]),
        "/v1/players/{username}/hunts/{hunt}/collage": .object([
            "get": operation(
                "collage", "The collage of a hunt the player completed (the share page's picture)",
                responses: [
                    ("200", jpeg("The collage")),
                    ("404", problem("No such player, or the hunt is not complete")),
                ],
                parameters: [
                    parameter("username", in: "path", string), parameter("hunt", in: "path", string),
                ])
        ]),
        "/v1/hunts/{id}/image": .object([
            "get": operation(
                "huntImage",
                "The image the hunt file names: a JPEG drawn anew without metadata (at most 1024 px), a PNG, WebP or GIF as it is",
                responses: [
                    ("200", picture("The image")), ("404", problem("No such hunt, or it has no image")),
                    ("422", problem("The image cannot be decoded")),
                ], parameters: [parameter("id", in: "path", string)])
        ]),
        "/v1/stops/{id}/image": .object([
            "get": operation(
                "stopImage", "The image the hunt file names for a stop (as for a hunt's image)",
                responses: [
                    ("200", picture("The image")), ("404", problem("No such stop, or it has no image")),
                    ("422", problem("The image cannot be decoded")),
                ], parameters: [parameter("id", in: "path", string)])
        ]),
        "/v1/events": .object([
            "get": operation(
                "events",
                "Server-sent events (send Accept: text/event-stream): `event: change` after every write to the league (a check-in, a review, a new player); pages read what they show again. A `: ping` comment every 20 s",
                responses: [
                    ("200", answer("An endless text/event-stream", string, type: "text/event-stream")),
                    ("406", problem("The request did not accept text/event-stream")),
                    ("503", problem("Too many pages listening")),
                ])
        ]),
        "/v1/players/{username}/avatar": .object([
            "get": operation(
                "avatar", "A player's profile picture",
                responses: [
                    (
                        "200",
                        .object([
                            "description": .string("The picture"),
                            "content": .object([
                                "image/jpeg": .object([
                                    "schema": .object([
                                        "type": .string("string"), "format": .string("binary"),
                                    ])
                                ])
                            ]),
                        ])
                    ),
                    ("404", problem("No such player, or no picture")),
                ],
                parameters: [parameter("username", in: "path", string)])
        ]),
        "/v1/checkins": .object([
            "post":
                operation(
                    "checkIn",
                    "Check in with a photo, a device fix (lat, lon, fix_time, accuracy_m), or both: the fix places the player and the photo's own GPS, when present, must agree with it. A stop's code (`code`: printed there, or from its screen with `stop`) stands in for a position GPS could not give",
                    responses: [
                        (
                            "201",
                            answer(
                                "Recorded, with its verdict (accepted, rejected or pending)", ref("CheckIn"))
                        ),
                        (
                            "400",
                            problem(
                                "A malformed or cut-short form, or an Idempotency-Key that is not 1 to 255 visible ASCII characters"
                            )
                        ),
                        ("401", problem("No valid token")),
                        ("404", problem("No such hunt")), ("413", problem("A photo over 64 MiB")),
                        ("415", problem("Not multipart/form-data")),
                        (
                            "422",
                            problem(
                                "No evidence, no position (a photo without GPS and no device fix), an unreadable photo, a bad field, or an Idempotency-Key already used for a different check-in"
                            )
                        ), ("429", tooMany),
                    ],
                    parameters: [
                        parameter(
                            "Idempotency-Key", in: "header",
                            .object([
                                "type": .string("string"), "minLength": .int(1), "maxLength": .int(255),
                                "pattern": .string("^[!-~]+$"),
                                "description": .string(
                                    "A retry of the same check-in with the same key gets the first answer (and the header Idempotent-Replayed: true) and records nothing"
                                ),
                            ]))
                    ],
                    authenticated: true
                ).merging([
                    "requestBody": .object([
                        "required": .bool(true),
                        "content": content(ref("CheckInForm"), type: "multipart/form-data"),
                    ])
                ])
        ]),
        "/v1/me/checkins": .object([
            "get": operation(
                "myCheckIns", "One's own check-ins, newest first",
                responses: [
                    ("200", answer("The check-ins", array(ref("MyCheckIn")))),
                    ("401", problem("No valid token")),
                ],
                authenticated: true)
        ]),
        "/v1/reviews": .object([
            "get": operation(
                "reviews", "Pending check-ins, oldest first (moderators)",
                responses: [
                    ("200", answer("The queue", array(ref("Pending")))), ("401", problem("No valid token")),
                    ("403", problem("Not a moderator")),
                ], authenticated: true)
        ]),
        "/v1/reviews/{id}/approve": .object([
            "post": operation(
                "approve",
                "Accept a pending check-in, or overturn a rejected one with a reason (moderators; recorded_as names the check-in that holds it)",
                responses: [
                    ("200", answer("Decided", ref("ReviewOutcome"))), ("401", problem("No valid token")),
                    ("403", problem("Not a moderator, or the moderator's own check-in")),
                    ("404", problem("No such check-in")),
                    (
                        "409",
                        problem(
                            "The check-in is neither pending nor rejected, was already overturned, or fails a rule run again now (override: true approves it anyway)"
                        )
                    ),
                ] + badBody, body: ref("Decision"), parameters: [parameter("id", in: "path", integer)],
                authenticated: true)
        ]),
        "/v1/reviews/{id}/reject": .object([
            "post": operation(
                "reject", "Reject a pending check-in, with a reason (moderators)",
                responses: [
                    ("200", answer("Decided", ref("ReviewOutcome"))), ("401", problem("No valid token")),
                    ("403", problem("Not a moderator, or the moderator's own check-in")),
                    ("404", problem("No such check-in")),
                    ("409", problem("The check-in is not pending")),
                ] + badBody, body: ref("RejectDecision"), parameters: [parameter("id", in: "path", integer)],
                authenticated: true)
        ]),
        "/v1/reviews/{id}/revoke": .object([
            "post": operation(
                "revoke", "Withdraw an accepted check-in with what it earned, with a reason (moderators)",
                responses: [
                    ("200", answer("Decided", ref("ReviewOutcome"))), ("401", problem("No valid token")),
                    ("403", problem("Not a moderator, or the moderator's own check-in")),
                    ("404", problem("No such check-in")),
                    ("409", problem("The check-in is not accepted")),
                ] + badBody, body: ref("RejectDecision"), parameters: [parameter("id", in: "path", integer)],
                authenticated: true)
        ]),
        "/v1/feed": .object([
            "get": operation(
                "feed", "The latest check-ins, newest first, with a thumbnail of each photo (moderators)",
                responses: [
                    (
                        "200",
                        answer(
                            "The check-ins",
                            array(
                                object([
                                    ("id", integer), ("player", string),
                                    (
                                        "team",
                                        .object([
                                            "anyOf": .array([
                                                .object(["type": .string("null")]),
                                                object([("id", integer), ("name", nullableString)]),
                                            ])
                                        ])
                                    ),
                                    ("hunt", nullableString), ("stop", nullableString),
                                    ("stop_name", nullableString),
                                    ("received_at", dateTime), ("state", string), ("featured", boolean),
                                    ("photo_url", nullableString), ("thumbnail_url", nullableString),
                                ])))
                    ),
                    ("400", problem("A bad query")), ("401", problem("No valid token")),
                    ("403", problem("Not a moderator")), ("404", problem("No such hunt")),
                ],
                parameters: [
                    parameter("hunt", in: "query", string),
                    parameter(
                        "before", in: "query", .object(["type": .string("integer"), "minimum": .int(1)])),
                    parameter(
                        "limit", in: "query",
                        .object(["type": .string("integer"), "minimum": .int(1), "maximum": .int(200)])),
                ], authenticated: true)
        ]),
        "/v1/hunts/{id}/position": .object([
            "put": operation(
                "reportPosition",
                "Send the player's position for the organisers' map, while a hunt that shares positions is open",
                responses: [
                    ("204", .object(["description": .string("Kept (the player's last position)")])),
                    ("401", problem("No valid token")), ("404", problem("No such hunt")),
                    ("409", problem("The hunt does not share positions, or is not open")), ("429", tooMany),
                ] + badBody,
                body: object(
                    [("lat", number), ("lon", number), ("accuracy_m", number)],
                    required: ["lat", "lon", "accuracy_m"]),
                parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}/positions": .object([
            "get": operation(
                "positions",
                "Players' last positions in a hunt that shares them, while it is open (organisers)",
                responses: [
                    (
                        "200",
                        answer(
                            "The positions, newest first",
                            object([
                                ("hunt", string), ("share_positions", boolean), ("state", string),
                                ("now", dateTime),
                                (
                                    "positions",
                                    array(
                                        object([
                                            ("player", string), ("team", nullableString), ("lat", number),
                                            ("lon", number), ("accuracy_m", number), ("at", dateTime),
                                        ]))
                                ),
                            ]))
                    ),
                    ("401", problem("No valid token")), ("403", problem("Not an organiser")),
                    ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/checkins/{id}/featured": .object([
            "put": operation(
                "feature",
                "Put a check-in's photo on the hunt's projector board, or take it off (moderators)",
                responses: [
                    ("200", answer("Done", object([("id", integer), ("featured", boolean)]))),
                    ("401", problem("No valid token")), ("403", problem("Not a moderator")),
                    ("404", problem("No such check-in")), ("409", problem("The check-in has no photo")),
                ] + badBody, body: object([("featured", boolean)], required: ["featured"]),
                parameters: [parameter("id", in: "path", integer)], authenticated: true)
        ]),
        "/v1/hunts/{id}/featured": .object([
            "get": operation(
                "featured", "The hunt's featured photos that count, newest featured first (at most 12)",
                responses: [
                    (
                        "200",
                        answer(
                            "The photos",
                            array(
                                object([
                                    ("id", integer), ("player", string), ("stop_name", nullableString),
                                    ("photo_url", string),
                                ])))
                    ),
                    ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)])
        ]),
        "/v1/hunts": .object([
            "get": operation(
                "hunts", "The hunt feed",
                responses: [("200", answer("Every hunt", array(ref("Hunt")))), notModified],
                parameters: [ifNoneMatch]),
            "post": operation(
                "createHunt", "A new hunt as a draft (organisers)",
                responses: [
                    ("201", answer("Saved as a draft", ref("DraftSaved"))),
                    ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("409", problem("A hunt with this id exists")),
                ] + huntFileBody, body: ref("HuntFile"), authenticated: true),
        ]),
        "/v1/basemap": .object([
            "get": operation(
                "basemap",
                "The streets, footpaths, buildings and water vsh's maps draw under the stops (vsh-master basemap import)",
                responses: [
                    (
                        "200",
                        answer(
                            "A GeoJSON FeatureCollection (empty without a basemap); each feature's kind and a street's name",
                            type: "application/geo+json")
                    ), notModified,
                ], parameters: [ifNoneMatch])
        ]),
        "/v1/drafts": .object([
            "get": operation(
                "drafts", "Every hunt with a draft (organisers)",
                responses: [
                    ("200", answer("The drafts", array(ref("Draft")))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")),
                ], authenticated: true)
        ]),
        "/v1/hunts/{id}/draft": .object([
            "get": operation(
                "readDraft",
                "The hunt's draft, or its published file as the starting point (X-Draft: saved or published; organisers)",
                responses: [
                    ("200", answer("The hunt file", ref("HuntFile"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true),
            "put": operation(
                "saveDraft", "Replace the draft with a whole hunt file (organisers)",
                responses: [
                    ("200", answer("Saved", ref("DraftSaved"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                ] + huntFileBody, body: ref("HuntFile"), parameters: [parameter("id", in: "path", string)],
                authenticated: true),
            "delete": operation(
                "dropDraft", "Drop the draft (organisers)",
                responses: [
                    ("204", answer("Dropped")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No draft")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true),
        ]),
        "/v1/hunts/{id}/draft/image": .object([
            "put": operation(
                "draftHuntImage",
                "The hunt's cover picture, kept drawn anew without metadata, named in the draft (organisers)",
                responses: [
                    ("200", answer("Saved", ref("PictureSaved"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                    ("413", problem("A picture over 64 MiB")),
                    ("415", problem("Neither a JPEG nor a HEIC photo")),
                    ("422", problem("A picture that cannot be decoded")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}/draft/stops/{stop}/image": .object([
            "put": operation(
                "draftStopImage",
                "A stop's picture (taken on the spot), kept drawn anew without metadata, named in the draft (organisers)",
                responses: [
                    ("200", answer("Saved", ref("PictureSaved"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt or stop")),
                    ("413", problem("A picture over 64 MiB")),
                    ("415", problem("Neither a JPEG nor a HEIC photo")),
                    ("422", problem("A picture that cannot be decoded")),
                ],
                parameters: [parameter("id", in: "path", string), parameter("stop", in: "path", string)],
                authenticated: true)
        ]),
        "/v1/hunts/{id}/publish": .object([
            "post": operation(
                "publish",
                "Publish the draft as the hunt's next revision, on every instance within 2 s (organisers)",
                responses: [
                    ("200", answer("Published", ref("Published"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("409", problem("No draft")),
                    (
                        "422",
                        answer(
                            "Every problem of the draft", ref("HuntProblems"),
                            type: "application/problem+json")
                    ),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/joins": .object([
            "post": operation(
                "join", "Join the private hunt a code names (players)",
                responses: [
                    (
                        "200",
                        answer(
                            "Joined: the hunt's id and name, and the team when the code is a team's (else null)",
                            object([
                                ("hunt", object([("id", string), ("name", string)])),
                                (
                                    "team",
                                    .object([
                                        "anyOf": .array([
                                            .object(["type": .string("null")]),
                                            object([("id", integer), ("name", string)]),
                                        ])
                                    ])
                                ),
                            ]))
                    ),
                    ("401", problem("No valid token")), ("404", problem("No hunt or team has this code")),
                    ("409", problem("The team is full")),
                    ("429", tooMany),
                ] + badBody, body: object([("code", string)], required: ["code"]), authenticated: true)
        ]),
        "/v1/hunts/{id}/join-code.svg": .object([
            "get": operation(
                "joinCodeSVG", "The QR code of PUBLIC_URL/join/CODE, to print or project (organisers)",
                responses: [
                    ("200", answer("The QR code", type: "image/svg+xml")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt, or no join code")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}/join-code.png": .object([
            "get": operation(
                "joinCodePNG", "The QR code of PUBLIC_URL/join/CODE as a PNG (organisers)",
                responses: [
                    ("200", answer("The QR code", type: "image/png")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt, or no join code")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/stops/{id}/code.svg": .object([
            "get": operation(
                "stopCodeSVG",
                "The QR code of PUBLIC_URL/stops/ID?code=CODE, the stop's printed code (organisers)",
                responses: [
                    ("200", answer("The QR code", type: "image/svg+xml")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")),
                    ("404", problem("No such stop, or no printed code")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/stops/{id}/code.png": .object([
            "get": operation(
                "stopCodePNG", "The QR code of the stop's printed code as a PNG (organisers)",
                responses: [
                    ("200", answer("The QR code", type: "image/png")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")),
                    ("404", problem("No such stop, or no printed code")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/stops/{id}/display": .object([
            "get": operation(
                "stopDisplay",
                "What the screen at a stop with a rotating code shows: each 30-s code for the next four hours with its QR code (an organiser, or the screen's link token)",
                responses: [
                    ("200", answer("The codes", .object(["type": .string("object")]))),
                    ("401", problem("No valid token")), ("403", problem("Not an organiser")),
                    ("404", problem("No such stop, no rotating code, or a wrong screen link")),
                ],
                parameters: [parameter("id", in: "path", string), parameter("token", in: "query", string)],
                authenticated: true)
        ]),
        "/v1/announcements": .object([
            "get": operation(
                "announcements",
                "The latest announcements, newest first: the league's and those of the hunts the viewer may see",
                responses: [("200", answer("The announcements", array(ref("Announcement"))))]),
            "post": operation(
                "announce", "An announcement every open page shows at once (organisers)",
                responses: [
                    ("201", answer("Made", ref("Announcement"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")),
                ] + badBody,
                body: object(
                    [
                        ("text", string),
                        ("hunt", .object(["type": .array([.string("string"), .string("null")])])),
                    ], required: ["text"]),
                authenticated: true),
        ]),
        "/v1/adjustments": .object([
            "post": operation(
                "adjust", "Points given or taken by an organiser, with the reason the player is told",
                responses: [
                    ("201", answer("Made", ref("Adjustment"))), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")),
                ] + badBody,
                body: object(
                    [
                        ("player", string), ("team", integer), ("hunt", nullableString), ("points", integer),
                        ("reason", string),
                    ], required: ["points", "reason"]),
                authenticated: true),
            "get": operation(
                "adjustments", "A hunt's adjustments, oldest first (organisers)",
                responses: [
                    ("200", answer("The adjustments", array(ref("Adjustment")))),
                    ("400", problem("No hunt named")),
                    ("401", problem("No valid token")), ("403", problem("Not an organiser")),
                    ("404", problem("No such hunt")),
                ], parameters: [parameter("hunt", in: "query", string, required: true)], authenticated: true),
        ]),
        "/v1/hunts/{id}/teams": .object([
            "get": operation(
                "teams", "A hunt's teams and their members; the viewer's own team with its join code",
                responses: [
                    (
                        "200",
                        answer(
                            "The teams",
                            object([
                                ("hunt", string), ("play", string), ("max_team_size", nullableInteger),
                                ("teams", array(ref("TeamSummary"))),
                                (
                                    "mine",
                                    .object([
                                        "anyOf": .array([
                                            .object(["type": .string("null")]), ref("TeamSummary"),
                                        ])
                                    ])
                                ),
                            ]))
                    ),
                    ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)]),
            "post": operation(
                "createTeam", "A team of a hunt played in teams; a player who makes it is its first member",
                responses: [
                    (
                        "201",
                        answer(
                            "Made, with the code its players join with",
                            object([
                                ("team", object([("id", integer), ("name", string), ("hunt", string)])),
                                ("join_code", string),
                            ]))
                    ),
                    ("401", problem("No valid token")), ("404", problem("No such hunt")),
                    ("409", problem("A solo hunt, or a name the hunt's teams have")),
                ] + badBody, body: object([("name", string)], required: ["name"]),
                parameters: [parameter("id", in: "path", string)], authenticated: true),
        ]),
        "/v1/teams/{team}": .object([
            "get": operation(
                "team", "A team's page: members, rank, points, and who of the team reached each stop first",
                responses: [
                    (
                        "200",
                        answer(
                            "The team",
                            object(
                                [
                                    ("id", integer), ("name", string), ("rank", integer), ("points", integer),
                                    ("stops_visited", integer), ("stops_total", integer),
                                    ("completed", boolean),
                                    ("badges", array(string)),
                                    ("hunt", object([("id", string), ("name", string)])),
                                    ("members", array(object([("name", string), ("joined_at", dateTime)]))),
                                    (
                                        "stops",
                                        array(
                                            object([
                                                ("id", string), ("name", string), ("points", integer),
                                                ("visited_by", nullableString), ("at", nullableDateTime),
                                            ]))
                                    ),
                                    ("join_code", string),
                                ], required: ["id", "name", "rank", "points", "members", "stops"]))
                    ),
                    ("404", problem("No such team")),
                ], parameters: [parameter("team", in: "path", string)])
        ]),
        "/v1/teams/{team}/members/{username}": .object([
            "delete": operation(
                "leaveTeam",
                "Off the team (the member, or an organiser); their check-ins keep the team they counted for",
                responses: [
                    ("204", .object(["description": .string("Off the team")])),
                    ("401", problem("No valid token")),
                    ("403", problem("Neither the member nor an organiser")),
                    ("404", problem("No such team or player, or not a member")),
                ],
                parameters: [
                    parameter("team", in: "path", string), parameter("username", in: "path", string),
                ],
                authenticated: true),
            "put": operation(
                "moveToTeam", "Puts a player on the team, off their other team of the hunt (organisers)",
                responses: [
                    (
                        "200",
                        answer(
                            "Moved",
                            object([
                                ("team", object([("id", integer), ("name", string)])), ("player", string),
                            ]))
                    ),
                    ("401", problem("No valid token")), ("403", problem("Not an organiser")),
                    ("404", problem("No such team or player")), ("409", problem("The team is full")),
                ],
                parameters: [
                    parameter("team", in: "path", string), parameter("username", in: "path", string),
                ],
                authenticated: true),
        ]),
        "/v1/hunts/{id}/photos.zip": .object([
            "get": operation(
                "photos", "The hunt's accepted photos as a ZIP with manifest.csv, streamed (organisers)",
                responses: [
                    ("200", answer("The archive", type: "application/zip")),
                    ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}/results.csv": .object([
            "get": operation(
                "results", "The hunt's results as CSV (RFC 4180), a row a player by rank (organisers)",
                responses: [
                    ("200", answer("The results", type: "text/csv")), ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}/revisions": .object([
            "get": operation(
                "revisions", "The hunt's published revisions, newest first (organisers)",
                responses: [
                    ("200", answer("The revisions", array(ref("Revision")))),
                    ("401", problem("No valid token")),
                    ("403", problem("Not an organiser")), ("404", problem("No such hunt")),
                ], parameters: [parameter("id", in: "path", string)], authenticated: true)
        ]),
        "/v1/hunts/{id}": .object([
            "get": operation(
                "hunt", "One hunt as its hunt file (RFC 7946 FeatureCollection)",
                responses: [
                    ("200", answer("The hunt", ref("HuntFile"), type: "application/geo+json")),
                    ("404", problem("No such hunt")), notModified,
                ], parameters: [parameter("id", in: "path", string), ifNoneMatch])
        ]),
        "/v1/leaderboard": .object([
            "get": operation(
                "leaderboard", "Rankings, as vsh leaderboard --format json",
                responses: [
                    (
                        "200",
                        answer(
                            "The rows: players', or teams' with by=team",
                            array(.object(["anyOf": .array([ref("LeaderboardRow"), ref("TeamRow")])])))
                    ),
                    ("400", problem("A bad query")),
                    ("404", problem("No such hunt")), notModified,
                ],
                parameters: [
                    ifNoneMatch,
                    parameter("hunt", in: "query", string), parameter("since", in: "query", dateTime),
                    parameter("until", in: "query", dateTime),
                    parameter(
                        "by", in: "query",
                        .object([
                            "type": .string("string"), "enum": .array([.string("player"), .string("team")]),
                        ])),
                    parameter(
                        "limit", in: "query",
                        .object(["type": .string("integer"), "minimum": .int(1), "maximum": .int(10_000)])),
                ])
        ]),
        "/v1/players/{username}": .object([
            "get": operation(
                "player", "A public profile (never the e-mail address)",
                responses: [
                    ("200", answer("The profile", ref("Profile"))), ("404", problem("No such player")),
                    notModified,
                ],
                parameters: [parameter("username", in: "path", string), ifNoneMatch]),
            "patch": operation(
                "updatePlayer", "Rename a player, or ban them or lift the ban (organisers)",
                responses: [
                    (
                        "200",
                        answer(
                            "Done",
                            object([("player", string), ("banned", boolean)], required: ["player"]))
                    ),
                    ("401", problem("No valid token")), ("403", problem("Not an organiser")),
                    ("404", problem("No such player")),
                    ("409", problem("The new name is taken or looks like one")),
                ] + badBody,
                body: object([("username", string), ("banned", boolean)], required: []),
                parameters: [parameter("username", in: "path", string)], authenticated: true),
        ]),
    ])

    /// Public reads carry an ETag; sent back in If-None-Match while nothing changed, the answer is 304.
    static let ifNoneMatch = parameter("If-None-Match", in: "header", string)
    static let notModified: (String, JSONValue) = (
        "304", .object(["description": .string("Not modified since the ETag sent in If-None-Match")])
    )

    /// The document.
    public static let document: JSONValue = .object([
        "openapi": .string("3.1.0"),
        "info": .object([
            "title": .string("vsh"), "version": .string("0.6.0"),
            "description": .string(
                "The scavenger-hunt engine's service for players' phones."),
        ]),
        "paths": paths,
        "components": .object([
            "schemas": schemas,
            "securitySchemes": .object([
                "bearer": .object(["type": .string("http"), "scheme": .string("bearer")])
            ]),
        ]),
    ])

    /// Every (method, path) the document describes.
    public static var documentedEndpoints: Set<Endpoint> {
        guard case .object(let paths)? = document["paths"] else { return [] }
        var found = Set<Endpoint>()
        for (path, value) in paths.members {
            guard case .object(let methods) = value else { continue }
            for method in methods.keys {
                if let parsed = HTTPRequest.Method(method.uppercased()) {
                    found.insert(Endpoint(parsed, path))
                }
            }
        }
        return found
    }
}

extension JSONValue {
    /// An object with more members (for schemas built from a helper).
    fileprivate func merging(_ more: JSONObject) -> JSONValue {
        guard case .object(var object) = self else { return self }
        for (key, value) in more.members { object[key] = value }
        return .object(object)
    }

    /// A member of an object.
    fileprivate subscript(_ key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}
