extension HuntFile {
    /// Decimals kept for coordinates in hunt files: 7 is about a centimetre.
    public static let coordinateDecimals = 7

    /// The hunt file's text, as `vsh-master` writes it: RFC 7946, the hunt in
    /// the foreign member `hunt`, keys in a fixed order, two-space indentation, a
    /// position a line, coordinates to 7 decimals. Writing the same hunt twice
    /// gives the same bytes, and a change to one stop is a small diff.
    /// The hunt's metadata with the file's field names (the `hunt` member; also `vsh hunt --json`).
    /// `forPlayers` leaves out the organisers' secrets (`join_code`).
    public static func metadata(of hunt: Hunt, forPlayers: Bool = false) -> JSONObject {
        var fields: JSONObject = [
            "id": .string(hunt.id),
            "name": .string(hunt.name),
            "description": .string(hunt.description),
            "difficulty": .string(hunt.difficulty.rawValue),
            "bonus_points": .int(hunt.bonusPoints),
            "ordered": .bool(hunt.ordered),
            "timezone": .string(hunt.timeZone),
            "starts_at": .optional(hunt.startsAt.map(RFC3339.format)),
            "ends_at": .optional(hunt.endsAt.map(RFC3339.format)),
            "max_accuracy_m": .double(hunt.maxAccuracyMeters),
            "max_photo_age_s": .double(hunt.maxPhotoAgeSeconds),
            "tolerance_m": .double(hunt.toleranceMeters),
            "image": .optional(hunt.image),
        ]
        // Written only when the organiser changed it, so hunts that do not name it keep their bytes.
        if hunt.maxFixAgeSeconds != Hunt.defaultMaxFixAgeSeconds {
            fields["max_fix_age_s"] = .double(hunt.maxFixAgeSeconds)
        }
        if hunt.lateGraceSeconds != 0 { fields["late_grace_s"] = .double(hunt.lateGraceSeconds) }
        if !hunt.stopsProof.isEmpty {
            fields["proof"] = .array(hunt.proofText.split(separator: ",").map { .string(String($0)) })
        } else if hunt.proof != .any {
            fields["proof"] = .string(hunt.proof.rawValue)
        }
        // Always written: how fast players may go is the organiser's stated choice.
        fields["max_speed_kmh"] = .double(hunt.maxSpeedKmh)
        if let minimum = hunt.minDurationSeconds { fields["min_duration_s"] = .double(minimum) }
        if !hunt.translations.isEmpty { fields["translations"] = translationsJSON(hunt.translations) }
        if hunt.visibility != .public { fields["visibility"] = .string(hunt.visibility.rawValue) }
        if let code = hunt.joinCode, !forPlayers { fields["join_code"] = .string(code) }
        if hunt.play != .solo { fields["play"] = .string(hunt.play.rawValue) }
        if let size = hunt.maxTeamSize { fields["max_team_size"] = .int(size) }
        if hunt.sharePositions { fields["share_positions"] = .bool(true) }
        return fields
    }

    /// Writes a hunt as its hunt file: fixed key order, 7 decimals, stable for diffs.
    public static func text(of hunt: Hunt) -> String {
        JSONValue.object(document(of: hunt)).prettyText
    }

    /// The hunt file as a JSON value (`text(of:)` writes it). `forPlayers` leaves out every secret
    /// (the join code, stops' codes and rotating-code secrets) and says instead, for each stop
    /// with a code, `"has_code": true`: what the players' app is sent.
    public static func document(of hunt: Hunt, forPlayers: Bool = false) -> JSONObject {
        let meta = metadata(of: hunt, forPlayers: forPlayers)
        let features = hunt.stops.map { stop -> JSONValue in
            var properties: JSONObject = [
                "name": .string(stop.name), "description": .string(stop.description),
                "points": .int(stop.points),
                "image": .optional(stop.image),
            ]
            // Written only when set, so hunts without them keep their bytes.
            if stop.featured { properties["featured"] = .bool(true) }
            if let sponsor = stop.sponsor { properties["sponsor"] = .string(sponsor) }
            if !stop.translations.isEmpty { properties["translations"] = translationsJSON(stop.translations) }
            if !stop.proof.isEmpty {
                properties["proof"] = .array(
                    StopProof.allCases.filter(stop.proof.contains).map { .string($0.rawValue) })
            }
            if let question = stop.question {
                // The question, its choices, points and tries are the players' to read; its
                // answers are not.
                properties["question"] = .string(question.text)
                if !question.choices.isEmpty {
                    properties["choices"] = .array(question.choices.map { .string($0) })
                }
                if question.points != 0 || forPlayers { properties["answer_points"] = .int(question.points) }
                if question.attempts != StopQuestion.defaultAttempts || forPlayers {
                    properties["attempts"] = .int(question.attempts)
                }
                if !forPlayers {
                    properties["answers"] = .array(
                        question.answers.map { answer in
                            switch answer {
                            case .text(let text): return .string(text)
                            case .number(let value, let tolerance):
                                return tolerance == 0
                                    ? .double(value)
                                    : .object(["number": .double(value), "tolerance": .double(tolerance)])
                            }
                        })
                }
            }
            if forPlayers {
                if stop.hasCode { properties["has_code"] = .bool(true) }
            } else {
                if let code = stop.code { properties["code"] = .string(code.revealed) }
                switch stop.rotatingCode {
                case nil: break
                case .madeAtPublish?: properties["rotating_code"] = .bool(true)
                case .secret(let secret)?:
                    properties["rotating_code"] = .object(["secret": .string(secret.revealed)])
                }
            }
            return .object([
                "type": .string("Feature"),
                "id": .string(stop.id),
                "properties": .object(properties),
                "geometry": stop.geofence.geoJSON(decimals: coordinateDecimals),
            ])
        }
        return [
            "type": .string("FeatureCollection"), "hunt": .object(meta), "features": .array(features),
        ]
    }

    /// A geofence with every coordinate rounded as hunt files keep it.
    public static func rounded(_ geofence: Geofence) -> Geofence {
        func round(_ v: Double) -> Double {
            var scale = 1.0
            for _ in 0..<coordinateDecimals { scale *= 10 }
            return (v * scale).rounded() / scale
        }
        let polygons = geofence.polygons.map { polygon in
            Polygon(
                shell: (try? LinearRing(
                    polygon.shell.positions.map {
                        Coordinate(unchecked: round($0.latitude), round($0.longitude))
                    })) ?? polygon.shell,
                holes: polygon.holes.map { hole in
                    (try? LinearRing(
                        hole.positions.map { Coordinate(unchecked: round($0.latitude), round($0.longitude)) },
                        index: 1)) ?? hole
                })
        }
        return (try? Geofence(kind: geofence.kind, polygons: polygons)) ?? geofence
    }
}
