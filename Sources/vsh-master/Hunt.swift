import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

/// The hunt fields `hunt new` and `hunt set` take.
struct HuntFields: ParsableArguments {
    @Option(help: "The hunt's name.") var name: String?
    @Option(help: "What the hunt is about.") var description: String?
    @Option(help: "easy, medium, hard or expert.") var difficulty: String?
    @Option(help: "Points for completing every stop.") var bonus: Int?
    @Flag(inversion: .prefixedNo, help: "Stops must be visited in order.") var ordered: Bool?
    @Option(help: "IANA time zone, e.g. America/Los_Angeles.") var timezone: String?
    @Option(help: ArgumentHelp("Opening time, RFC 3339, or none.", valueName: "time")) var starts: String?
    @Option(help: ArgumentHelp("Closing time, RFC 3339, or none.", valueName: "time")) var ends: String?
    @Option(
        name: .customLong("max-accuracy"),
        help: ArgumentHelp("Fixes less accurate than this go to review.", valueName: "m")) var maxAccuracy:
        Double?
    @Option(
        name: .customLong("max-photo-age"), help: ArgumentHelp("Oldest photo accepted.", valueName: "seconds")
    ) var maxPhotoAge: Double?
    @Option(
        help: ArgumentHelp(
            "How far outside a stop a fix may be when its accuracy reaches it.", valueName: "m"))
    var tolerance: Double?
    @Option(
        name: .customLong("max-fix-age"),
        help: ArgumentHelp(
            "A device fix older than this when it arrives goes to review.", valueName: "seconds"))
    var maxFixAge: Double?
    @Option(
        name: .customLong("late-grace"),
        help: ArgumentHelp(
            "How long after --ends check-ins may still arrive (phones that were offline).",
            valueName: "seconds"))
    var lateGrace: Double?
    @Option(
        help: ArgumentHelp(
            "What a check-in must show: any (a photo or a device fix), photo, or what every stop asks for (photo,fix,code).",
            valueName: "any|photo|list"))
    var proof: String?
    @Option(
        name: .customLong("max-speed"),
        help: ArgumentHelp(
            "The fastest players may travel between two stops; faster goes to review (12: on foot).",
            valueName: "km/h"))
    var maxSpeed: Double?
    @Option(
        name: .customLong("min-duration"),
        help: ArgumentHelp(
            "The least time from a player's first stop to their last; sooner goes to review (or none).",
            valueName: "seconds"))
    var minDuration: String?
    @Option(
        help: ArgumentHelp("A picture for the hunt (copied into the folder's images/).", valueName: "file"))
    var image: String?
    @Option(
        help: ArgumentHelp(
            "Who sees the hunt: public, or private (only players who joined with its code; one is made if it has none).",
            valueName: "public|private"))
    var visibility: String?
    @Option(
        name: .customLong("join-code"),
        help: ArgumentHelp(
            "The code players join a private hunt with: auto (a new random one), or 6 to 32 capital letters and digits without 0, O, 1, I.",
            valueName: "auto|CODE"))
    var joinCode: String?
    @Option(
        help: ArgumentHelp(
            "How the hunt is played: solo, teams (only players on a team), or either.",
            valueName: "solo|teams|either"))
    var play: String?
    @Option(
        name: .customLong("max-team-size"),
        help: ArgumentHelp("The most players a team may have (1 to 1000), or none.", valueName: "count|none"))
    var maxTeamSize: String?
    @Flag(
        name: .customLong("share-positions"), inversion: .prefixedNo,
        help:
            "While the hunt runs, players' last positions show on the organisers' map (players are told on the hunt page)."
    )
    var sharePositions: Bool?

    func apply(to hunt: inout Hunt, folder: HuntFolder) throws {
        if let name { hunt.name = name }
        if let description { hunt.description = description }
        if let difficulty {
            guard let value = Hunt.Difficulty(rawValue: difficulty) else {
                throw InputError("--difficulty takes easy, medium, hard or expert", status: .usage)
            }
            hunt.difficulty = value
        }
        if let bonus { hunt.bonusPoints = bonus }
        if let ordered { hunt.ordered = ordered }
        if let timezone { hunt.timeZone = timezone }
        func time(_ text: String, _ option: String) throws -> Date? {
            text == "none" ? nil : try Clock.time(text, option: option)
        }
        if let starts { hunt.startsAt = try time(starts, "--starts") }
        if let ends { hunt.endsAt = try time(ends, "--ends") }
        if let maxAccuracy { hunt.maxAccuracyMeters = maxAccuracy }
        if let maxPhotoAge { hunt.maxPhotoAgeSeconds = maxPhotoAge }
        if let tolerance { hunt.toleranceMeters = tolerance }
        if let maxFixAge { hunt.maxFixAgeSeconds = maxFixAge }
        if let lateGrace { hunt.lateGraceSeconds = lateGrace }
        if let proof {
            guard Hunt.Proof(rawValue: proof) != nil || StopProof.parse(proof).map({ !$0.isEmpty }) == true
            else {
                throw InputError(
                    "--proof takes any, photo, or what every stop asks for: a list of photo, fix and code (photo,code)",
                    status: .usage)
            }
            hunt.setProof(text: proof)
        }
        if let maxSpeed { hunt.maxSpeedKmh = maxSpeed }
        if let minDuration {
            if minDuration == "none" {
                hunt.minDurationSeconds = nil
            } else if let seconds = Double(minDuration), seconds.isFinite {
                hunt.minDurationSeconds = seconds
            } else {
                throw InputError("--min-duration takes a number of seconds or none", status: .usage)
            }
        }
        if let image { hunt.image = try folder.keepImage(image, as: hunt.id) }
        if let visibility {
            guard let value = Hunt.Visibility(rawValue: visibility) else {
                throw InputError("--visibility takes public or private", status: .usage)
            }
            hunt.visibility = value
        }
        if let joinCode {
            if joinCode == "auto" {
                hunt.joinCode = JoinCode.make()
            } else {
                let code = JoinCode.normalized(joinCode)
                if let problem = JoinCode.problem(code) {
                    throw InputError("--join-code \(problem)", status: .usage)
                }
                hunt.joinCode = code
            }
        }
        if hunt.visibility == .private && hunt.joinCode == nil { hunt.joinCode = JoinCode.make() }
        if let play {
            guard let value = Hunt.Play(rawValue: play) else {
                throw InputError("--play takes solo, teams or either", status: .usage)
            }
            hunt.play = value
        }
        if let maxTeamSize {
            if maxTeamSize == "none" {
                hunt.maxTeamSize = nil
            } else if let size = Int(maxTeamSize), (1...1_000).contains(size) {
                hunt.maxTeamSize = size
            } else {
                throw InputError("--max-team-size takes a number from 1 to 1000, or none", status: .usage)
            }
        }
        if let sharePositions { hunt.sharePositions = sharePositions }
    }
}

func openFolder(_ options: FolderOptions) throws -> HuntFolder {
    let folder = try HuntFolder(directory: options.directory, inspector: try SpatiaLiteInspector.standalone())
    // Images enter the folder as pixels only: upright, at most 2048 px, encoded anew by libjpeg,
    // without the EXIF (camera serial, owner, GPS) of the organiser's original.
    folder.redrawJPEG = { bytes in
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vsh-master-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try Avatar.fitted(from: bytes, folder: scratch.path, longest: 2048)
    }
    return folder
}

extension VSHMaster {
    struct HuntCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hunt", abstract: "Create, change or remove a hunt.",
            subcommands: [New.self, Set.self, Remove.self])

        struct New: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "new",
                abstract: "Create a hunt file (add stops with `stop add`).")
            @OptionGroup var folder: FolderOptions
            @Argument(help: "The hunt id: lower-case letters, digits, hyphens (the file name).") var id:
                String
            @OptionGroup var fields: HuntFields

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    guard Slug.isValid(id) else {
                        throw InputError(
                            "\"\(id)\" is not an id: use lower-case letters, digits and hyphens",
                            status: .usage)
                    }
                    guard let name = fields.name else {
                        throw InputError("a new hunt needs --name", status: .usage)
                    }
                    // The first hunt makes its folder (not its parents: a mistyped path stays an error).
                    var isFolder: ObjCBool = false
                    if !FileManager.default.fileExists(atPath: folder.directory, isDirectory: &isFolder) {
                        do {
                            try FileManager.default.createDirectory(
                                atPath: folder.directory, withIntermediateDirectories: false)
                        } catch {
                            throw InputError(
                                "\(folder.directory): cannot create the hunts folder (does its parent exist?)",
                                status: .noInput)
                        }
                        Output.line("\(folder.directory): folder created")
                    }
                    let hunts = try openFolder(folder)
                    guard !hunts.hunts.contains(where: { $0.id == id }) else {
                        throw InputError("hunt \"\(id)\" already exists")
                    }
                    var hunt = Hunt(id: id, name: name)
                    try fields.apply(to: &hunt, folder: hunts)
                    try hunts.save([hunt])
                    Output.line("\(hunts.path(of: id)): created")
                    return .success
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Change a hunt's fields.")
            @OptionGroup var folder: FolderOptions
            @Argument(help: "The hunt id.") var id: String
            @OptionGroup var fields: HuntFields

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    var hunt = try hunts.hunt(id)
                    try fields.apply(to: &hunt, folder: hunts)
                    try hunts.save([hunt])
                    Output.line("\(hunts.path(of: id)): updated")
                    return .success
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rm", abstract: "Delete a hunt file.",
                discussion: """
                    Players keep a removed hunt's points (stops, bonus, badges) until the next `vsh sync`. \
                    A hunt that still has stops, or from which players of the league (--db) hold points, \
                    is removed only with --force, after saying how many players and points.
                    """)
            @OptionGroup var folder: FolderOptions
            @OptionGroup var league: LeagueDatabaseOption
            @Argument(help: "The hunt id.") var id: String
            @Flag(help: "Also when it still has stops or players hold points from it.") var force = false

            func run() async throws {
                try await CommandRunner.run(tool: "vsh-master") {
                    let hunts = try openFolder(folder)
                    let hunt = try hunts.hunt(id)
                    let held = try await league.pointsHeld(hunt: id, stop: nil)
                    let touched = held.map { $0.players > 0 } ?? false
                    guard (hunt.stops.isEmpty && !touched) || force else {
                        var what = ["\(hunt.stops.count) stops"]
                        if let held, touched {
                            what.append("\(held.sentence) from it, which the next vsh sync takes away")
                        }
                        throw InputError(
                            "hunt \"\(id)\" has \(what.joined(separator: "; ")); "
                                + (touched ? "use --force to remove it" : "remove them first or use --force"))
                    }
                    try hunts.save([], removing: [id])
                    var line = "\(hunts.path(of: id)): removed"
                    if let held, touched { line += " (\(held.sentence) from it until the next vsh sync)" }
                    Output.line(line)
                    return .success
                }
            }
        }
    }
}
