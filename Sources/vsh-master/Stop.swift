import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHGeodesy
import VSHSpatiaLite

/// Exactly one place a stop's geofence comes from.
struct GeometrySource: ParsableArguments {
    @Option(help: ArgumentHelp("The perimeter walked with a GPS logger.", valueName: "file.gpx")) var gpx:
        String?
    @Option(help: ArgumentHelp("With --gpx: Douglas-Peucker tolerance.", valueName: "m")) var simplify:
        Double = 3
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Photos taken at the corners (their GPS positions).", valueName: "photo"))
    var photos: [String] = []
    @Option(help: ArgumentHelp("With --photos: how far beyond the corners.", valueName: "m")) var buffer:
        Double = 5
    // Unconditional: south of the equator and west of Greenwich a centre starts with "-".
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("A circle: centre and radius in metres.", valueName: "lat,lon,radius"))
    var circle: String?
    @Option(
        help: ArgumentHelp(
            "A GeoJSON Polygon, MultiPolygon, Feature or one-feature collection.", valueName: "file"))
    var geojson: String?
    @Option(
        help: ArgumentHelp("Well-known text, longitude first: POLYGON((lon lat, ...)).", valueName: "text"))
    var wkt: String?

    var count: Int {
        [gpx != nil, !photos.isEmpty, circle != nil, geojson != nil, wkt != nil].filter { $0 }.count
    }

    func geofence(inspector: SpatiaLiteInspector) throws -> Geofence? {
        guard count <= 1 else {
            throw InputError(
                "give one geometry: --gpx, --photos, --circle, --geojson or --wkt", status: .usage)
        }
        if let gpx {
            guard simplify >= 0 && simplify <= 100 else {
                throw InputError("--simplify takes 0 to 100 m", status: .usage)
            }
            return try StopGeometry.fromGPX(gpx, simplifyMeters: simplify, inspector: inspector)
        }
        if !photos.isEmpty {
            guard buffer >= 0 && buffer <= 500 else {
                throw InputError("--buffer takes 0 to 500 m", status: .usage)
            }
            return try StopGeometry.fromPhotos(photos, bufferMeters: buffer, inspector: inspector)
        }
        if let circle {
            let parts = circle.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3, let lat = parts[0], let lon = parts[1], let radius = parts[2],
                let center = try? Coordinate(latitude: lat, longitude: lon)
            else { throw InputError("--circle takes LAT,LON,RADIUS_M", status: .usage) }
            return try StopGeometry.circle(center: center, radiusMeters: radius)
        }
        if let geojson { return try StopGeometry.fromGeoJSON(geojson) }
        if let wkt { return try StopGeometry.fromWKT(wkt, inspector: inspector) }
        return nil
    }
}

/// The stop fields `stop add` and `stop set` take.
struct StopFields: ParsableArguments {
    @Option(help: "The stop's name.") var name: String?
    @Option(help: "Points for the first visit.") var points: Int?
    @Option(help: "What to look for there.") var description: String?
    @Option(
        help: ArgumentHelp("A picture of the stop (copied into the folder's images/).", valueName: "file"))
    var image: String?
    @Option(
        help: ArgumentHelp(
            "What a check-in here must bring besides what the hunt asks: photo, fix, code, answer (a list such as photo,code) or none.",
            valueName: "list"))
    var proof: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Shown first in the app's feed and marked on maps (a sight not to miss, or a sponsor's place).")
    var featured: Bool?
    @Option(
        help: ArgumentHelp(
            "Who sponsors the stop, shown wherever the stop is shown (\(Stop.maxSponsorLength) characters at most), or none.",
            valueName: "text"))
    var sponsor: String?
    @Option(
        help: ArgumentHelp(
            "A code printed at the stop (a QR code: vsh-master codes): auto makes one, or give it (8 to 32 letters and digits without 0, O, 1, I), or none.",
            valueName: "auto|code|none"))
    var code: String?
    @Flag(
        inversion: .prefixedNo,
        help:
            "A code on a screen at the stop that changes every 30 s (its secret is written in the hunt file; the screen is /display/STOP)."
    )
    var rotating: Bool?
    @Option(
        help: ArgumentHelp(
            "A question players answer at the stop (from a plaque, a sign, a screen), or none.",
            valueName: "text"))
    var question: String?
    @Option(
        help: ArgumentHelp(
            "A right answer (repeatable): a text (case, accents, spaces and punctuation do not count) or a number.",
            valueName: "text"))
    var answer: [String] = []
    @Option(help: ArgumentHelp("A choice players pick from (repeatable: 2 to 8).", valueName: "text"))
    var choice: [String] = []
    @Option(help: ArgumentHelp("How far a number answer may be off, either side.", valueName: "n"))
    var tolerance: Double?
    @Option(help: ArgumentHelp("Points for the right answer, on top of the stop's.", valueName: "n"))
    var answerPoints: Int?
    @Option(help: ArgumentHelp("How many answers a player may give (1 to 10; 3 by default).", valueName: "n"))
    var attempts: Int?

    /// The stop's question as `--question`, `--answer`, `--choice`, `--tolerance`,
    /// `--answer-points` and `--attempts` change it; checked as a hunt file's is.
    func applyQuestion(to stop: inout Stop) throws {
        if question == "none" {
            stop.question = nil
            stop.proof.remove(.answer)
            return
        }
        let changes =
            question != nil || !answer.isEmpty || !choice.isEmpty || tolerance != nil || answerPoints != nil
            || attempts != nil
        guard changes else { return }
        guard var asked = stop.question ?? question.map({ StopQuestion(text: $0, answers: []) }) else {
            throw InputError("--answer, --choice and the like need --question TEXT", status: .usage)
        }
        if let question {
            let text = question.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= StopQuestion.maxLength else {
                throw InputError(
                    "--question takes 1 to \(StopQuestion.maxLength) characters, or none", status: .usage)
            }
            asked.text = text
        }
        if !choice.isEmpty { asked.choices = choice }
        if let tolerance, !(tolerance >= 0 && tolerance.isFinite) {
            throw InputError("--tolerance takes a number of 0 or more", status: .usage)
        }
        if !answer.isEmpty {
            asked.answers = answer.map { typed in
                if asked.choices.isEmpty, let number = StopQuestion.number(typed) {
                    return .number(number, tolerance: tolerance ?? 0)
                }
                return .text(typed)
            }
        } else if let tolerance {
            asked.answers = asked.answers.map {
                if case .number(let value, _) = $0 { return .number(value, tolerance: tolerance) }
                return $0
            }
        }
        if let answerPoints {
            guard (0...1_000_000).contains(answerPoints) else {
                throw InputError("--answer-points takes 0 to 1000000", status: .usage)
            }
            asked.points = answerPoints
        }
        if let attempts {
            guard (1...StopQuestion.maxAttempts).contains(attempts) else {
                throw InputError("--attempts takes 1 to \(StopQuestion.maxAttempts)", status: .usage)
            }
            asked.attempts = attempts
        }
        guard !asked.answers.isEmpty else {
            throw InputError("a question needs its answers: give --answer (repeatable)", status: .usage)
        }
        stop.question = asked
    }

    /// The stop's codes as `--code` and `--rotating` change them (a rotating code keeps its secret).
    func applyCodes(to stop: inout Stop) throws {
        if let code {
            switch code {
            case "none": stop.code = nil
            case "auto": stop.code = Secret(StopCode.make())
            default:
                let normalized = StopCode.normalized(code)
                if let problem = StopCode.problem(normalized) {
                    throw InputError("--code \(problem)", status: .usage)
                }
                stop.code = Secret(normalized)
            }
        }
        switch rotating {
        case nil: break
        case false?: stop.rotatingCode = nil
        case true?:
            if stop.rotatingCode?.secret == nil { stop.rotatingCode = .secret(RotatingCode.makeSecret()) }
        }
    }

    /// Refuses a proof the stop cannot satisfy before anything is written (saving checks the rest,
    /// the question's choices and answers included, as the hunt-file reader does).
    static func check(_ stop: Stop) throws {
        if stop.proof.contains(.answer), stop.question == nil {
            throw InputError(
                "--proof lists answer, but the stop asks no question: give --question and --answer",
                status: .usage)
        }
    }

    /// The sponsor line as `--sponsor` gives it: `.some(nil)` for none, nil when not given.
    func sponsorChoice() throws -> String?? {
        guard let sponsor else { return nil }
        if sponsor == "none" { return .some(nil) }
        let line = sponsor.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty, line.count <= Stop.maxSponsorLength else {
            throw InputError(
                "--sponsor takes 1 to \(Stop.maxSponsorLength) characters, or none", status: .usage)
        }
        return .some(line)
    }

    /// The stop's own proof as `--proof` gives it, nil when not given.
    func proofChoice() throws -> Set<StopProof>? {
        guard let proof else { return nil }
        if proof == "none" { return [] }
        guard let value = StopProof.parse(proof), !value.isEmpty else {
            throw InputError(
                "--proof takes a list of photo, fix, code and answer (photo,code), or none", status: .usage)
        }
        return value
    }
}

extension VSHMaster {
    struct StopCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "Add, list, show, move, change or remove stops.",
            subcommands: [Add.self, List.self, Show.self, Move.self, Set.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a stop from a walked GPX perimeter, corner photos, a circle, GeoJSON or WKT.",
                discussion: """
                    vsh-master stop add --hunt strip-classics --id mgm-lion --name "MGM Grand Lion" --points 30 \\
                        --circle 36.1025,-115.1714,40
                    vsh-master stop add ... --gpx walk.gpx --simplify 3      (the walk must end near its start)
                    vsh-master stop add ... --photos a.jpg b.jpg c.jpg d.jpg --buffer 5   (the first is the stop's image)
                    """)
            @OptionGroup var folder: FolderOptions
            @Option(help: "The hunt to add to.") var hunt: String
            @Option(help: "The stop id: lower-case letters, digits, hyphens; unique across hunts.") var id:
                String
            @OptionGroup var fields: StopFields
            @OptionGroup var source: GeometrySource

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    guard Slug.isValid(id) else {
                        throw InputError(
                            "\"\(id)\" is not an id: use lower-case letters, digits and hyphens",
                            status: .usage)
                    }
                    guard let name = fields.name, let points = fields.points else {
                        throw InputError("a new stop needs --name and --points", status: .usage)
                    }
                    let proof = try fields.proofChoice()
                    let sponsor = try fields.sponsorChoice() ?? nil
                    guard source.count == 1 else {
                        throw InputError(
                            "give one geometry: --gpx, --photos, --circle, --geojson or --wkt", status: .usage
                        )
                    }
                    let hunts = try openFolder(folder)
                    var target = try hunts.hunt(hunt)
                    if let owner = hunts.hunts.first(where: { $0.stops.contains { $0.id == id } }) {
                        throw InputError("stop \"\(id)\" already exists in \(owner.id)")
                    }
                    let geofence = try source.geofence(inspector: try SpatiaLiteInspector.standalone())!
                    var image: String?
                    if let file = fields.image ?? source.photos.first {
                        image = try hunts.keepImage(file, as: id)
                    }
                    var stop = Stop(
                        id: id, huntID: hunt, name: name, description: fields.description ?? "",
                        points: points, image: image, geofence: geofence,
                        featured: fields.featured ?? false,
                        sponsor: sponsor, proof: proof ?? [])
                    try fields.applyCodes(to: &stop)
                    try fields.applyQuestion(to: &stop)
                    try StopFields.check(stop)
                    target.stops.append(stop)
                    try hunts.save([target])
                    let area = Geodesic.areaSquareMeters(of: geofence)
                    Output.line(
                        "\(hunts.path(of: hunt)): added \(id) (\(Int(area.rounded())) m², \(geofence.allPositions.count) positions)"
                    )
                    return .success
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List the stops of every hunt, or of one.")
            @OptionGroup var folder: FolderOptions
            @Option(help: "Only this hunt.") var hunt: String?

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    var table = TextTable(
                        headers: ["STOP", "HUNT", "NAME", "POINTS", "AREA m²"], rightAligned: [3, 4])
                    for h in hunts.hunts where hunt == nil || h.id == hunt {
                        for s in h.stops {
                            table.append([
                                s.id, h.id, s.name, "\(s.points)",
                                "\(Int(Geodesic.areaSquareMeters(of: s.geofence).rounded()))",
                            ])
                        }
                    }
                    if let hunt, !hunts.hunts.contains(where: { $0.id == hunt }) { _ = try hunts.hunt(hunt) }
                    table.render().forEach(Output.line)
                    return .success
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show",
                abstract: "Show one stop, with its geometry as GeoJSON.")
            @OptionGroup var folder: FolderOptions
            @Argument(help: "The stop id.") var id: String

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let (hunt, index) = try openFolder(folder).locate(stop: id)
                    let stop = hunt.stops[index]
                    let center = stop.geofence.bounds.center
                    Output.line("\(stop.name) (\(hunt.id)/\(stop.id)), \(stop.points) points")
                    if !stop.description.isEmpty { Output.line(stop.description) }
                    Output.line(
                        "area \(Int(Geodesic.areaSquareMeters(of: stop.geofence).rounded())) m², \(stop.geofence.allPositions.count) positions, centre \(Coordinate.printed(center.latitude)), \(Coordinate.printed(center.longitude))"
                    )
                    if let image = stop.image { Output.line("image \(image)") }
                    Output.line(stop.geofence.geoJSON(decimals: HuntFile.coordinateDecimals).compactText)
                    return .success
                }
            }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "move",
                abstract: "Move a stop to another hunt (it keeps its id).")
            @OptionGroup var folder: FolderOptions
            @Argument(help: "The stop id.") var id: String
            @Option(help: "The hunt to move it to.") var to: String

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    var (from, index) = try hunts.locate(stop: id)
                    var target = try hunts.hunt(to)
                    guard from.id != target.id else { throw InputError("stop \"\(id)\" is already in \(to)") }
                    var stop = from.stops.remove(at: index)
                    stop.huntID = target.id
                    target.stops.append(stop)
                    try hunts.save([from, target])
                    Output.line("moved \(id) from \(from.id) to \(target.id)")
                    return .success
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Change a stop's fields or geometry.")
            @OptionGroup var folder: FolderOptions
            @Argument(help: "The stop id.") var id: String
            @OptionGroup var fields: StopFields
            @OptionGroup var source: GeometrySource

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    var (hunt, index) = try hunts.locate(stop: id)
                    if let name = fields.name { hunt.stops[index].name = name }
                    if let points = fields.points { hunt.stops[index].points = points }
                    if let description = fields.description { hunt.stops[index].description = description }
                    if let proof = try fields.proofChoice() { hunt.stops[index].proof = proof }
                    if let featured = fields.featured { hunt.stops[index].featured = featured }
                    if let sponsor = try fields.sponsorChoice() { hunt.stops[index].sponsor = sponsor }
                    try fields.applyCodes(to: &hunt.stops[index])
                    try fields.applyQuestion(to: &hunt.stops[index])
                    try StopFields.check(hunt.stops[index])
                    if let geofence = try source.geofence(inspector: try SpatiaLiteInspector.standalone()) {
                        hunt.stops[index].geofence = geofence
                    }
                    if let file = fields.image ?? source.photos.first {
                        hunt.stops[index].image = try hunts.keepImage(file, as: id)
                    }
                    try hunts.save([hunt])
                    Output.line("\(hunts.path(of: hunt.id)): updated \(id)")
                    return .success
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rm", abstract: "Remove a stop.",
                discussion: """
                    Players keep the points of a removed stop until the next `vsh sync`, which takes them \
                    away. When the league (--db) has players holding points from the stop, rm says how many \
                    and how much and removes it only with --force.
                    """)
            @OptionGroup var folder: FolderOptions
            @OptionGroup var league: LeagueDatabaseOption
            @Argument(help: "The stop id.") var id: String
            @Flag(help: "Also when players hold points from it.") var force = false

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    var (hunt, index) = try hunts.locate(stop: id)
                    let held = try await league.pointsHeld(hunt: hunt.id, stop: id)
                    if let held, held.players > 0, !force {
                        throw InputError(
                            "stop \"\(id)\": \(held.sentence) from it, which the next vsh sync takes away; "
                                + "use --force to remove it")
                    }
                    hunt.stops.remove(at: index)
                    try hunts.save([hunt])
                    var line = "\(hunts.path(of: hunt.id)): removed \(id)"
                    if let held, held.players > 0 {
                        line += " (\(held.sentence) from it until the next vsh sync)"
                    }
                    Output.line(line)
                    return .success
                }
            }
        }
    }
}
