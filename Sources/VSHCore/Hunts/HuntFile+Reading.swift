import Foundation

/// The hunt-file format: one RFC 7946 FeatureCollection per hunt, metadata in
/// the foreign member `hunt`, one Feature per stop (README, "Hunt files").
public enum HuntFile {
    /// Hunt files larger than this are refused before parsing.
    public static let maxFileBytes = 16 << 20
    /// Positions one stop's geometry may have: a landmark needs tens, a walked
    /// perimeter a few hundred after simplification.
    public static let maxPositionsPerStop = 20_000
    /// The smallest and largest area a stop may cover, in square metres: below
    /// a square metre a fence is a drawing slip; above 25 km² it is a town, not a stop.
    public static let allowedAreaSquareMeters: ClosedRange<Double> = 1...25_000_000

    /// Keys the `hunt` member may have; anything else is reported as a likely typo.
    public static let huntKeys: Set<String> = [
        "id", "name", "description", "difficulty", "bonus_points", "ordered", "timezone", "starts_at",
        "ends_at", "max_accuracy_m", "max_photo_age_s", "tolerance_m", "image", "max_fix_age_s",
        "late_grace_s", "proof", "max_speed_kmh", "min_duration_s", "translations", "visibility", "join_code",
        "play", "max_team_size", "share_positions",
    ]

    /// Reads and validates one hunt file.
    /// - Parameters:
    ///   - bytes: the file's content.
    ///   - file: the path shown in errors (`hunts/strip-classics.geojson`).
    ///   - expectedID: the hunt id the file name implies, or nil to accept any.
    ///   - inspector: checks topology and area of each stop's geofence.
    /// - Returns: the hunt, or every problem found (never both).
    public static func read(
        _ bytes: some Collection<UInt8>, file: String, expectedID: String?,
        inspector: some GeofenceInspector
    ) -> Result<Hunt, HuntFileErrors> {
        var reader = Reader(file: file, inspector: inspector)
        let hunt = reader.read(bytes, expectedID: expectedID)
        if let hunt, reader.errors.isEmpty { return .success(hunt) }
        return .failure(HuntFileErrors(reader.errors))
    }

    /// Parses a GeoJSON Polygon or MultiPolygon geometry object into a geofence.
    /// Checks structure and ranges only; topology is the inspector's.
    public static func geofence(from geometry: JSONValue) throws(HuntFileError.Problem) -> Geofence {
        guard case .object(let object) = geometry else {
            throw .wrongType(field: "geometry", expected: "an object", found: geometry.typeDescription)
        }
        guard case .string(let type)? = object["type"] else { throw .missingField("geometry.type") }
        guard let coordinates = object["coordinates"] else { throw .missingField("geometry.coordinates") }
        do {
            switch type {
            case "Polygon":
                return Geofence(try polygon(coordinates))
            case "MultiPolygon":
                guard case .array(let polygons) = coordinates, !polygons.isEmpty else {
                    throw HuntFileError.Problem.invalidValue(
                        field: "geometry.coordinates", reason: "must be a non-empty array of polygons")
                }
                return try Geofence(kind: .multiPolygon, polygons: polygons.map(polygon))
            default:
                throw HuntFileError.Problem.invalidValue(
                    field: "geometry.type", reason: "is \"\(type)\"; a stop is a Polygon or a MultiPolygon")
            }
        } catch let error as GeometryError {
            throw .geometry(error)
        } catch let problem as HuntFileError.Problem {
            throw problem
        } catch {
            throw .invalidValue(field: "geometry", reason: "\(error)")
        }
    }

    private static func polygon(_ value: JSONValue) throws -> Polygon {
        guard case .array(let rings) = value, !rings.isEmpty else {
            throw HuntFileError.Problem.invalidValue(
                field: "geometry.coordinates", reason: "must be a non-empty array of rings")
        }
        let built = try rings.enumerated().map { index, ring in try linearRing(ring, index: index) }
        return Polygon(shell: built[0], holes: Array(built.dropFirst()))
    }

    private static func linearRing(_ value: JSONValue, index: Int) throws -> LinearRing {
        guard case .array(let positions) = value else {
            throw HuntFileError.Problem.invalidValue(
                field: "geometry.coordinates", reason: "ring \(index) must be an array of positions")
        }
        let coordinates = try positions.map { position -> Coordinate in
            guard case .array(let numbers) = position, numbers.count >= 2,
                case .number(let lon, _) = numbers[0], case .number(let lat, _) = numbers[1]
            else {
                throw HuntFileError.Problem.invalidValue(
                    field: "geometry.coordinates",
                    reason: "ring \(index) has a position that is not [longitude, latitude]")
            }
            return try Coordinate(latitude: lat, longitude: lon)
        }
        return try LinearRing(coordinates, index: index)
    }
}

/// Every problem found in one or more hunt files, one per line.
public struct HuntFileErrors: Error, Equatable, Sendable, CustomStringConvertible {
    /// Every problem found, in file order.
    public var errors: [HuntFileError]

    /// The problems of one or more files.
    public init(_ errors: [HuntFileError]) { self.errors = errors }

    /// One problem a line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

private struct Reader<Inspector: GeofenceInspector> {
    let file: String
    let inspector: Inspector
    var errors: [HuntFileError] = []

    init(file: String, inspector: Inspector) {
        self.file = file
        self.inspector = inspector
    }

    mutating func fail(_ problem: HuntFileError.Problem, stop: String? = nil) {
        errors.append(HuntFileError(file: file, stop: stop, problem: problem))
    }

    mutating func read(_ bytes: some Collection<UInt8>, expectedID: String?) -> Hunt? {
        guard bytes.count <= HuntFile.maxFileBytes else {
            fail(.tooLarge(bytes: bytes.count, limit: HuntFile.maxFileBytes))
            return nil
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            fail(.syntax(error))
            return nil
        }
        guard case .object(let collection) = root, collection["type"] == .string("FeatureCollection") else {
            fail(.notAFeatureCollection)
            return nil
        }
        guard let metadata = collection["hunt"] else {
            fail(.missingField("hunt"))
            return nil
        }
        guard case .object(let meta) = metadata else {
            fail(.wrongType(field: "hunt", expected: "an object", found: metadata.typeDescription))
            return nil
        }
        var hunt = readHunt(meta, expectedID: expectedID)
        guard let featuresValue = collection["features"] else {
            fail(.missingField("features"))
            return nil
        }
        guard case .array(let features) = featuresValue else {
            fail(.wrongType(field: "features", expected: "an array", found: featuresValue.typeDescription))
            return nil
        }
        var seen = Set<String>()
        for (index, feature) in features.enumerated() {
            guard let stop = readStop(feature, index: index, huntID: hunt?.id ?? expectedID ?? "") else {
                continue
            }
            if !seen.insert(stop.id).inserted {
                fail(.duplicateStop(id: stop.id, firstFile: file), stop: stop.id)
                continue
            }
            // A hunt whose every stop asks for its code needs a code at every stop.
            if hunt?.stopsProof.contains(.code) == true, !stop.hasCode {
                fail(
                    .invalidValue(
                        field: "proof",
                        reason:
                            "the hunt's proof lists \"code\", but the stop has no \"code\" or \"rotating_code\" for players to bring"
                    ),
                    stop: stop.id)
            }
            if hunt?.stopsProof.contains(.answer) == true, stop.question == nil {
                fail(
                    .invalidValue(
                        field: "proof",
                        reason:
                            "the hunt's proof lists \"answer\", but the stop asks no \"question\" for players to answer"
                    ),
                    stop: stop.id)
            }
            hunt?.stops.append(stop)
        }
        return hunt
    }

    mutating func string(_ object: JSONObject, _ key: String, required: Bool, stop: String? = nil) -> String?
    {
        switch object[key] {
        case .string(let value)?:
            if let problem = DisplayText.problem(in: value, multiline: key == "description") {
                fail(.invalidValue(field: key, reason: problem), stop: stop)
                return nil
            }
            return value
        case nil, .null?:
            if required { fail(.missingField(key), stop: stop) }
            return nil
        case let other?:
            fail(.wrongType(field: key, expected: "a string", found: other.typeDescription), stop: stop)
            return nil
        }
    }

    mutating func number(
        _ object: JSONObject, _ key: String, integer: Bool, range: ClosedRange<Double>, stop: String? = nil
    ) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let value, let isInteger)?:
            if integer && !(isInteger || value == value.rounded()) {
                fail(.wrongType(field: key, expected: "a whole number", found: "\(value)"), stop: stop)
                return nil
            }
            guard range.contains(value) else {
                let shown = integer ? "\(Int(range.lowerBound))...\(Int(range.upperBound))" : "\(range)"
                fail(
                    .invalidValue(
                        field: key, reason: "is \(JSONValue.format(value)); it must be in \(shown)"),
                    stop: stop)
                return nil
            }
            return value
        case let other?:
            fail(
                .wrongType(
                    field: key, expected: integer ? "a whole number" : "a number",
                    found: other.typeDescription), stop: stop)
            return nil
        }
    }

    mutating func date(_ object: JSONObject, _ key: String) -> Date? {
        guard let text = string(object, key, required: false) else { return nil }
        guard let date = RFC3339.parse(text) else {
            fail(.invalidValue(field: key, reason: "is \"\(text)\", not an RFC 3339 time with an offset"))
            return nil
        }
        return date
    }

    mutating func readHunt(_ meta: JSONObject, expectedID: String?) -> Hunt? {
        let before = errors.count
        for key in meta.keys where !HuntFile.huntKeys.contains(key) { fail(.unknownField("hunt.\(key)")) }
        let id = string(meta, "id", required: true)
        if let id {
            if !Slug.isValid(id) {
                fail(
                    .invalidValue(
                        field: "id", reason: "is \"\(id)\"; use lower-case letters, digits and hyphens"))
            } else if let expectedID, id != expectedID {
                fail(.huntIDMismatch(id: id, expected: expectedID))
            }
        }
        let name = string(meta, "name", required: true)
        if let name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            fail(.invalidValue(field: "name", reason: "is empty"))
        }
        var hunt = Hunt(id: id ?? "", name: name ?? "")
        hunt.description = string(meta, "description", required: false) ?? ""
        hunt.translations = translations(meta)
        if let difficulty = string(meta, "difficulty", required: false) {
            if let value = Hunt.Difficulty(rawValue: difficulty) {
                hunt.difficulty = value
            } else {
                let allowed = Hunt.Difficulty.allCases.map(\.rawValue).joined(separator: ", ")
                fail(
                    .invalidValue(field: "difficulty", reason: "is \"\(difficulty)\"; use one of \(allowed)"))
            }
        }
        if let bonus = number(meta, "bonus_points", integer: true, range: 0...1_000_000) {
            hunt.bonusPoints = Int(bonus)
        }
        switch meta["ordered"] {
        case nil, .null?: break
        case .bool(let ordered)?: hunt.ordered = ordered
        case let other?:
            fail(.wrongType(field: "ordered", expected: "true or false", found: other.typeDescription))
        }
        if let zone = string(meta, "timezone", required: false) {
            if TimeZone(identifier: zone) == nil || zone.isEmpty {
                fail(
                    .invalidValue(
                        field: "timezone",
                        reason: "is \"\(zone)\", not an IANA time zone such as America/Los_Angeles"))
            } else {
                hunt.timeZone = zone
            }
        }
        hunt.startsAt = date(meta, "starts_at")
        hunt.endsAt = date(meta, "ends_at")
        if let start = hunt.startsAt, let end = hunt.endsAt, end <= start {
            fail(.invalidValue(field: "ends_at", reason: "is not after starts_at"))
        }
        if let value = number(meta, "max_accuracy_m", integer: false, range: 1...10_000) {
            hunt.maxAccuracyMeters = value
        }
        if let value = number(meta, "max_fix_age_s", integer: false, range: 10...31_622_400) {
            hunt.maxFixAgeSeconds = value
        }
        if let value = number(meta, "max_photo_age_s", integer: false, range: 60...31_622_400) {
            hunt.maxPhotoAgeSeconds = value
        }
        if let value = number(meta, "late_grace_s", integer: false, range: 0...31_622_400) {
            hunt.lateGraceSeconds = value
        }
        switch meta["proof"] {
        case nil, .null?: break
        case .string(let value)?:
            if let proof = Hunt.Proof(rawValue: value) {
                hunt.proof = proof
            } else {
                fail(
                    .invalidValue(
                        field: "proof",
                        reason: "must be \"any\", \"photo\" or a list such as [\"photo\", \"code\"]"))
            }
        case .array(let items)?:
            // A list: what every stop asks for (photo, fix, code).
            var list: Set<StopProof> = []
            for item in items {
                guard case .string(let text) = item, let value = StopProof(rawValue: text) else {
                    fail(
                        .invalidValue(
                            field: "proof",
                            reason:
                                "lists what every check-in must bring: \"photo\", \"fix\", \"code\", \"answer\""
                        ))
                    list = []
                    break
                }
                list.insert(value)
            }
            hunt.proof = list.remove(.photo) == nil ? .any : .photo
            hunt.stopsProof = list
        case let other?:
            fail(
                .wrongType(
                    field: "proof", expected: "\"any\", \"photo\" or a list", found: other.typeDescription))
        }
        if let value = number(
            meta, "max_speed_kmh", integer: false, range: 1...Hunt.impossibleSpeedKmh)
        {
            hunt.maxSpeedKmh = value
        }
        if let value = number(meta, "min_duration_s", integer: false, range: 0...31_622_400) {
            hunt.minDurationSeconds = value
        }
        if let value = number(meta, "tolerance_m", integer: false, range: 0...1_000) {
            hunt.toleranceMeters = value
        }
        hunt.image = string(meta, "image", required: false)
        if let value = string(meta, "visibility", required: false) {
            if let visibility = Hunt.Visibility(rawValue: value) {
                hunt.visibility = visibility
            } else {
                fail(.invalidValue(field: "visibility", reason: "must be \"public\" or \"private\""))
            }
        }
        if let value = string(meta, "play", required: false) {
            if let play = Hunt.Play(rawValue: value) {
                hunt.play = play
            } else {
                fail(.invalidValue(field: "play", reason: "must be \"solo\", \"teams\" or \"either\""))
            }
        }
        if let value = number(meta, "max_team_size", integer: true, range: 1...1_000) {
            hunt.maxTeamSize = Int(value)
        }
        switch meta["share_positions"] {
        case nil, .null?: break
        case .bool(let share)?: hunt.sharePositions = share
        case let other?:
            fail(
                .wrongType(field: "share_positions", expected: "true or false", found: other.typeDescription))
        }
        if let value = string(meta, "join_code", required: false) {
            let code = JoinCode.normalized(value)
            if let problem = JoinCode.problem(code) {
                fail(.invalidValue(field: "join_code", reason: problem))
            } else {
                hunt.joinCode = code
            }
        } else if hunt.visibility == .private {
            fail(
                .invalidValue(
                    field: "join_code",
                    reason:
                        "is missing: a private hunt needs the code its players join with (6 to 32 capital letters and digits without 0, O, 1, I)"
                ))
        }
        return errors.count == before ? hunt : nil
    }

    mutating func readStop(_ value: JSONValue, index: Int, huntID: String) -> Stop? {
        guard case .object(let feature) = value, feature["type"] == .string("Feature") else {
            fail(.invalidValue(field: "features[\(index)]", reason: "is not a GeoJSON Feature"))
            return nil
        }
        let id: String
        switch feature["id"] {
        case .string(let text)? where Slug.isValid(text): id = text
        case .string(let text)?:
            fail(
                .invalidValue(
                    field: "features[\(index)].id",
                    reason: "is \"\(text)\"; use lower-case letters, digits and hyphens"))
            return nil
        case nil, .null?:
            fail(.missingField("features[\(index)].id"))
            return nil
        case let other?:
            fail(
                .wrongType(field: "features[\(index)].id", expected: "a string", found: other.typeDescription)
            )
            return nil
        }
        let before = errors.count
        var properties = JSONObject()
        switch feature["properties"] {
        case .object(let object)?: properties = object
        case nil, .null?: fail(.missingField("properties"), stop: id)
        case let other?:
            fail(
                .wrongType(field: "properties", expected: "an object", found: other.typeDescription), stop: id
            )
        }
        let name = string(properties, "name", required: true, stop: id)
        if let name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            fail(.invalidValue(field: "name", reason: "is empty"), stop: id)
        }
        if properties["points"] == nil || properties["points"] == .null {
            fail(.missingField("points"), stop: id)
        }
        let points = number(properties, "points", integer: true, range: 0...1_000_000, stop: id)
        let description = string(properties, "description", required: false, stop: id) ?? ""
        let image = string(properties, "image", required: false, stop: id)
        var featured = false
        switch properties["featured"] {
        case nil, .null?: break
        case .bool(let value)?: featured = value
        case let other?:
            fail(
                .wrongType(field: "featured", expected: "true or false", found: other.typeDescription),
                stop: id)
        }
        let sponsor = string(properties, "sponsor", required: false, stop: id)
        let translated = translations(properties, stop: id)
        if let sponsor,
            sponsor.count > Stop.maxSponsorLength || sponsor.trimmingCharacters(in: .whitespaces).isEmpty
        {
            fail(
                .invalidValue(field: "sponsor", reason: "must be 1 to \(Stop.maxSponsorLength) characters"),
                stop: id)
        }
        var proof: Set<StopProof> = []
        switch properties["proof"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                if case .string(let text) = item, let value = StopProof(rawValue: text) {
                    proof.insert(value)
                } else {
                    fail(
                        .invalidValue(
                            field: "proof",
                            reason:
                                "lists what a check-in must bring: \"photo\", \"fix\", \"code\", \"answer\""),
                        stop: id)
                    break
                }
            }
        case let other?:
            fail(
                .wrongType(
                    field: "proof", expected: "a list such as [\"photo\"]", found: other.typeDescription),
                stop: id)
        }
        var code: Secret?
        if let value = string(properties, "code", required: false, stop: id) {
            let normalized = StopCode.normalized(value)
            if let problem = StopCode.problem(normalized) {
                fail(.invalidValue(field: "code", reason: problem), stop: id)
            } else {
                code = Secret(normalized)
            }
        }
        var rotating: RotatingCode?
        switch properties["rotating_code"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?: rotating = .madeAtPublish
        case .object(let object)?:
            if let unknown = object.keys.sorted().first(where: { $0 != "secret" }) {
                fail(.unknownField("rotating_code.\(unknown)"), stop: id)
            } else if case .string(let text)? = object["secret"] {
                if let problem = RotatingCode.problem(text) {
                    fail(.invalidValue(field: "rotating_code.secret", reason: problem), stop: id)
                } else {
                    rotating = .secret(
                        Secret(text.uppercased().filter { $0 != " " && $0 != "-" && $0 != "=" }))
                }
            } else {
                fail(.missingField("rotating_code.secret"), stop: id)
            }
        case let other?:
            fail(
                .wrongType(
                    field: "rotating_code", expected: "true, or an object with its \"secret\"",
                    found: other.typeDescription), stop: id)
        }
        if proof.contains(.code), code == nil, rotating == nil,
            properties["code"] == nil, properties["rotating_code"] == nil
        {
            fail(
                .invalidValue(
                    field: "proof",
                    reason:
                        "lists \"code\", but the stop has no \"code\" or \"rotating_code\" for players to bring"
                ),
                stop: id)
        }
        let question = readQuestion(properties, stop: id)
        if proof.contains(.answer), question == nil, properties["question"] == nil {
            fail(
                .invalidValue(
                    field: "proof",
                    reason: "lists \"answer\", but the stop asks no \"question\" for players to answer"),
                stop: id)
        }
        guard let geometry = feature["geometry"], geometry != .null else {
            fail(.missingField("geometry"), stop: id)
            return nil
        }
        let geofence: Geofence
        do {
            geofence = try HuntFile.geofence(from: geometry)
        } catch {
            fail(error, stop: id)
            return nil
        }
        let positions = geofence.polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.positions.count } }
        if positions > HuntFile.maxPositionsPerStop {
            fail(.tooManyPositions(count: positions, limit: HuntFile.maxPositionsPerStop), stop: id)
            return nil
        }
        do {
            let inspection = try inspector.inspect(geofence)
            if let reason = inspection.invalidReason {
                fail(.geometry(.invalid(reason: reason)), stop: id)
            } else if !HuntFile.allowedAreaSquareMeters.contains(inspection.areaSquareMeters) {
                fail(
                    .geometry(
                        .areaOutOfRange(
                            squareMeters: inspection.areaSquareMeters,
                            allowed: HuntFile.allowedAreaSquareMeters)), stop: id)
            }
        } catch {
            fail(.geometry(.invalid(reason: "\(error)")), stop: id)
        }
        guard errors.count == before, let name, let points else { return nil }
        var stop = Stop(
            id: id, huntID: huntID, name: name, description: description, points: Int(points), image: image,
            geofence: geofence, featured: featured, sponsor: sponsor, proof: proof)
        stop.translations = translated
        stop.code = code
        stop.rotatingCode = rotating
        stop.question = question
        return stop
    }

    /// A stop's question (`question`, `choices`, `answers`, `answer_points`, `attempts`), or nil
    /// (with the problems reported) when it has none or it is wrong.
    mutating func readQuestion(_ properties: JSONObject, stop id: String) -> StopQuestion? {
        let asked = ["choices", "answers", "answer_points", "attempts"].filter {
            properties[$0] != nil && properties[$0] != .null
        }
        guard let text = string(properties, "question", required: false, stop: id) else {
            if properties["question"] == nil || properties["question"] == .null, let first = asked.first {
                fail(
                    .invalidValue(
                        field: first, reason: "belongs to a \"question\", and the stop asks none"),
                    stop: id)
            }
            return nil
        }
        let before = errors.count
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || text.count > StopQuestion.maxLength
        {
            fail(
                .invalidValue(field: "question", reason: "must be 1 to \(StopQuestion.maxLength) characters"),
                stop: id)
        }
        var choices: [String] = []
        switch properties["choices"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                guard case .string(let choice) = item, !StopQuestion.fold(choice).isEmpty,
                    choice.count <= StopQuestion.maxLength,
                    DisplayText.problem(in: choice, multiline: false) == nil
                else {
                    fail(
                        .invalidValue(
                            field: "choices",
                            reason:
                                "lists the choices players pick from: texts of 1 to \(StopQuestion.maxLength) characters with a letter or digit"
                        ), stop: id)
                    break
                }
                choices.append(choice)
            }
            if Set(choices.map(StopQuestion.fold)).count != choices.count {
                fail(.invalidValue(field: "choices", reason: "lists the same choice twice"), stop: id)
            } else if !(2...StopQuestion.maxChoices).contains(choices.count) {
                fail(
                    .invalidValue(
                        field: "choices",
                        reason: "must list 2 to \(StopQuestion.maxChoices) choices (it has \(choices.count))"),
                    stop: id)
            }
        case let other?:
            fail(
                .wrongType(
                    field: "choices", expected: "a list such as [\"Bellagio\", \"Wynn\"]",
                    found: other.typeDescription), stop: id)
        }
        var answers: [StopQuestion.Answer] = []
        let shape =
            "lists what counts as right: texts such as \"Bellagio\", numbers such as 1998, or {\"number\": 1998, \"tolerance\": 1}"
        switch properties["answers"] {
        case nil, .null?:
            fail(.missingField("answers"), stop: id)
        case .array(let items)?:
            for item in items {
                switch item {
                case .string(let answer)
                where !StopQuestion.fold(answer).isEmpty && answer.count <= StopQuestion.maxLength:
                    if !choices.isEmpty,
                        !choices.contains(where: { StopQuestion.fold($0) == StopQuestion.fold(answer) })
                    {
                        fail(
                            .invalidValue(
                                field: "answers",
                                reason: "holds \"\(answer)\", which is not one of the choices"),
                            stop: id)
                    }
                    answers.append(.text(answer))
                case .number(let value, _) where value.isFinite:
                    answers.append(.number(value, tolerance: 0))
                case .object(let object):
                    if let unknown = object.keys.sorted().first(where: { $0 != "number" && $0 != "tolerance" }
                    ) {
                        fail(.unknownField("answers.\(unknown)"), stop: id)
                    } else if case .number(let value, _)? = object["number"], value.isFinite {
                        var tolerance = 0.0
                        switch object["tolerance"] {
                        case nil, .null?: break
                        case .number(let given, _)? where given >= 0 && given.isFinite: tolerance = given
                        default:
                            fail(
                                .invalidValue(
                                    field: "answers.tolerance", reason: "must be a number of 0 or more"),
                                stop: id)
                        }
                        answers.append(.number(value, tolerance: tolerance))
                    } else {
                        fail(.missingField("answers.number"), stop: id)
                    }
                default:
                    fail(.invalidValue(field: "answers", reason: shape), stop: id)
                }
            }
            if items.isEmpty {
                fail(
                    .invalidValue(field: "answers", reason: "is empty: a question needs at least one answer"),
                    stop: id)
            } else if items.count > StopQuestion.maxAnswers {
                fail(
                    .invalidValue(
                        field: "answers", reason: "lists \(items.count); at most \(StopQuestion.maxAnswers)"),
                    stop: id)
            } else if !choices.isEmpty,
                answers.contains(where: { if case .number = $0 { true } else { false } })
            {
                fail(.invalidValue(field: "answers", reason: "must name choices, as texts"), stop: id)
            }
        case let other?:
            fail(.wrongType(field: "answers", expected: "a list", found: other.typeDescription), stop: id)
        }
        let points = number(properties, "answer_points", integer: true, range: 0...1_000_000, stop: id) ?? 0
        let attempts =
            number(
                properties, "attempts", integer: true, range: 1...Double(StopQuestion.maxAttempts), stop: id)
            ?? Double(StopQuestion.defaultAttempts)
        guard errors.count == before else { return nil }
        return StopQuestion(
            text: text, choices: choices, answers: answers, points: Int(points), attempts: Int(attempts))
    }
}

extension Reader {
    /// The `translations` member of `object` (the hunt's metadata or a stop's properties): each
    /// language tag with a `name` and an optional `description`, checked as the file's own are.
    mutating func translations(_ object: JSONObject, stop: String? = nil) -> [String: Translation] {
        guard let value = object["translations"], value != .null else { return [:] }
        guard case .object(let languages) = value else {
            fail(
                .wrongType(
                    field: "translations", expected: "an object such as {\"es\": {\"name\": \"…\"}}",
                    found: value.typeDescription), stop: stop)
            return [:]
        }
        if languages.members.count > HuntFile.maxTranslations {
            fail(
                .invalidValue(
                    field: "translations",
                    reason: "gives \(languages.members.count) languages; at most \(HuntFile.maxTranslations)"),
                stop: stop)
            return [:]
        }
        var found: [String: Translation] = [:]
        for (tag, entry) in languages.members {
            let field = "translations.\(tag)"
            guard HuntFile.isLanguageTag(tag) else {
                fail(
                    .invalidValue(
                        field: "translations",
                        reason: "names \"\(tag)\", not a language tag such as es or pt-BR"),
                    stop: stop)
                continue
            }
            guard case .object(let fields) = entry else {
                fail(
                    .wrongType(field: field, expected: "an object with a name", found: entry.typeDescription),
                    stop: stop)
                continue
            }
            for key in fields.keys where key != "name" && key != "description" {
                fail(.unknownField("\(field).\(key)"), stop: stop)
            }
            var texts: [String: String] = [:]
            for key in ["name", "description"] {
                switch fields[key] {
                case .string(let text)?:
                    if let problem = DisplayText.problem(in: text, multiline: key == "description") {
                        fail(.invalidValue(field: "\(field).\(key)", reason: problem), stop: stop)
                    } else if key == "name", text.allSatisfy(\.isWhitespace) {
                        fail(.invalidValue(field: "\(field).name", reason: "is empty"), stop: stop)
                    } else {
                        texts[key] = text
                    }
                case nil, .null?:
                    if key == "name" { fail(.missingField("\(field).name"), stop: stop) }
                case let other?:
                    fail(
                        .wrongType(
                            field: "\(field).\(key)", expected: "a string", found: other.typeDescription),
                        stop: stop)
                }
            }
            if let name = texts["name"] {
                found[tag] = Translation(name: name, description: texts["description"])
            }
        }
        return found
    }
}
