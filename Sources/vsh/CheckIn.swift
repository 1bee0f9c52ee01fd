import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHPhoto
import VSHSpatiaLite

extension VSH {
    struct CheckIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkin",
            abstract: "Verify and record a check-in from a photo or a device fix.",
            discussion: """
                vsh checkin --player Ann --photo sign.jpg
                vsh checkin --player Ann --fix 36.08201,-115.17273 --time 2026-11-21T19:30:00Z --accuracy 8
                vsh checkin --player Ann --photo IMG_0412.jpg --fix 36.08201,-115.17273 --time 2026-11-21T19:30:00Z --accuracy 8
                vsh checkin --player Ann --code K7MQ-R2XW-HT
                vsh checkin --player Ann --stop sphere-atrium --code 492039 --photo atrium.jpg

                A stop's code (printed at the stop, or shown on its screen) proves presence where GPS \
                cannot: with no position, or one that indoor GPS put near the stop, it places the player \
                inside the stop. A screen's code needs --stop.

                The rules run in a fixed order (see the README) and every submission is recorded with each \
                rule's result. Exit 0 accepted, 1 rejected, 2 pending review; 65 for an unreadable photo or an \
                unknown player or hunt (nothing is recorded then).
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "The player's name.") var player: String
        @Option(
            parsing: .upToNextOption,
            help: ArgumentHelp(
                "A JPEG taken at the stop; or many files and folders, checked in as a batch.",
                valueName: "file"))
        var photo: [String] = []
        // Unconditional: south of the equator and west of Greenwich a position starts with "-".
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "A device position: alone, or with the photo it was taken with.", valueName: "lat,lon"))
        var fix: String?
        @Option(help: ArgumentHelp("With --fix: when the device took the fix (RFC 3339).", valueName: "time"))
        var time: String?
        @Option(help: ArgumentHelp("With --fix: the fix's accuracy radius in metres.", valueName: "m"))
        var accuracy: Double?
        @Option(help: "Check in to this hunt only (default: the hunt of the stop the position is at).")
        var hunt: String?
        @Option(help: ArgumentHelp("The code printed at the stop or shown on its screen.", valueName: "code"))
        var code: String?
        @Option(help: ArgumentHelp("The stop meant (needed with a screen's code).", valueName: "id"))
        var stop: String?
        @Option(help: ArgumentHelp("The answer to the stop's question.", valueName: "text"))
        var answer: String?
        @Option(help: ArgumentHelp("Use this time as now (RFC 3339).", valueName: "time")) var now: String?
        @Flag(help: "One JSON object (shape in the README).") var json = false

        func validate() throws {
            guard !photo.isEmpty || fix != nil || code != nil else {
                throw ValidationError(
                    "give --photo FILE, --fix LAT,LON, or both (a photo with the device's fix), or --code")
            }
            if (code != nil || stop != nil) && photo.count > 1 {
                throw ValidationError("--code and --stop go with one check-in, not a batch")
            }
            if fix != nil && time == nil {
                throw ValidationError("--fix needs --time (when the device took the fix)")
            }
            if fix == nil && (time != nil || accuracy != nil) {
                throw ValidationError("--time and --accuracy go with --fix; a photo carries its own")
            }
            if let accuracy, !accuracy.isFinite || !(0...1_000_000).contains(accuracy) {
                throw ValidationError("--accuracy takes 0 to 1000000 metres")
            }
            if fix != nil && photo.count > 1 {
                throw ValidationError("--fix goes with one photo, not a batch")
            }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let clock = try Clock.now(now)
                let db = try await store.openStore()
                let service = CheckInService(
                    store: db, photos: store.photos(of: db),
                    readWidth: ProcessInfo.processInfo.activeProcessorCount)
                let recorded: RecordedCheckIn
                let files = try PhotoFiles.expand(photo)
                let deviceFix = try self.deviceFix()
                let playerID = try await db.requirePlayer(named: player).id
                if code != nil || stop != nil || answer != nil {
                    recorded = try await placed(
                        service, player: playerID, files: files, deviceFix: deviceFix, clock: clock)
                } else if files.count > 1 || (photo.count == 1 && files.count != 1) {
                    guard deviceFix == nil else {
                        throw InputError("--fix goes with one photo, not a folder", status: .usage)
                    }
                    return try await batch(service, player: playerID, files: files, clock: clock)
                } else if let single = files.first {
                    let bytes = try PhotoReader.fileBytes(path: single)
                    recorded = try await service.checkIn(
                        player: playerID, photo: bytes, name: single, deviceFix: deviceFix, huntID: hunt,
                        now: clock)
                } else if let deviceFix {
                    recorded = try await service.checkIn(
                        player: playerID, position: deviceFix.position, time: deviceFix.time,
                        accuracyMeters: deviceFix.accuracyMeters, huntID: hunt, now: clock)
                } else {
                    throw InputError("give --photo FILE or --fix LAT,LON", status: .usage)
                }
                if json {
                    Output.line(CheckInJSON.checkIn(recorded).compactText)
                } else {
                    // The rules' times on the hunt's clock.
                    let clock = try await HuntClock.of(db)
                    let huntID = recorded.decision.stop?.huntID ?? hunt
                    for line in CheckInJSON.describe(recorded) {
                        Output.line(clock.words(line, hunt: huntID))
                    }
                }
                return ExitStatus(recorded.decision.verdict)
            }
        }

        /// A check-in with `--code`, `--stop` or `--answer`: matched to its stop (`CodePlacement`) and recorded.
        func placed(
            _ service: CheckInService, player: PlayerID, files: [String],
            deviceFix: (position: Coordinate, time: Date, accuracyMeters: Double?)?, clock: Date
        ) async throws -> RecordedCheckIn {
            guard files.count <= 1 else {
                throw InputError(
                    "--code, --stop and --answer go with one photo, not a folder", status: .usage)
            }
            let hunts = try await service.store.hunts().map(\.hunt)
            // Matched before the photo is kept, so that an unknown stop or code burns nothing.
            let codePlaces = try CodePlacement.codePlaces(
                stopID: stop, code: code, in: hunts, hasDeviceFix: deviceFix != nil)
            let submission: Submission
            var photoFile: String?
            if let single = files.first {
                (submission, photoFile) = try await service.submission(
                    player: player, photo: try PhotoReader.fileBytes(path: single), name: single,
                    deviceFix: deviceFix, huntID: hunt, now: clock, requirePosition: !codePlaces)
            } else if let deviceFix {
                submission = try await service.submission(
                    player: player, position: deviceFix.position, time: deviceFix.time,
                    accuracyMeters: deviceFix.accuracyMeters, huntID: hunt, now: clock)
            } else if let code {
                submission = try CodePlacement.codeOnly(
                    player: player, stopID: stop, code: code, huntID: hunt, in: hunts, now: clock)
            } else {
                throw InputError("--stop goes with --photo, --fix or --code", status: .usage)
            }
            var finished = try CodePlacement.finish(submission, stopID: stop, code: code, in: hunts)
            if let answer {
                guard answer.count <= StopQuestion.maxLength else {
                    throw InputError(
                        "--answer is longer than \(StopQuestion.maxLength) characters", status: .usage)
                }
                finished.answer = answer
            }
            return try await service.record(finished, photoFile: photoFile)
        }

        /// `--fix`, `--time` and `--accuracy` as a device fix, or nil without `--fix`.
        func deviceFix() throws -> (position: Coordinate, time: Date, accuracyMeters: Double?)? {
            guard let fix else { return nil }
            let parts = fix.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let lat = parts[0], let lon = parts[1],
                let position = try? Coordinate(latitude: lat, longitude: lon)
            else {
                throw InputError("--fix takes LAT,LON in decimal degrees, in range", status: .usage)
            }
            return (position, try Clock.time(time ?? "", option: "--time"), accuracy)
        }

        /// Many photos: one line each (a JSON object with --json), batched transactions.
        /// Exit 65 when a photo could not be read, else 1 when any was rejected, else 2 when any waits for review.
        func batch(_ service: CheckInService, player: PlayerID, files: [String], clock: Date) async throws
            -> ExitStatus
        {
            var worst = ExitStatus.success
            var counts: [String: Int] = [:]
            for item in try await service.checkIn(player: player, photos: files, huntID: hunt, now: clock) {
                switch item {
                case .recorded(let path, let recorded):
                    counts[recorded.decision.verdict.rawValue, default: 0] += 1
                    if json {
                        guard case .object(let object) = CheckInJSON.checkIn(recorded) else { continue }
                        Output.line(
                            JSONValue.object(
                                JSONObject([(key: "file", value: .string(path))] + object.members)
                            ).compactText)
                    } else {
                        Output.line("\(path): " + CheckInJSON.headline(recorded))
                    }
                    if recorded.decision.verdict == .rejected && worst != .dataError { worst = .rejected }
                    if recorded.decision.verdict == .pending && worst == .success { worst = .pendingReview }
                case .unreadable(let path, let error):
                    counts["unreadable", default: 0] += 1
                    if json {
                        Output.line(
                            JSONValue.object(["file": .string(path), "error": .string(error.reason)])
                                .compactText)
                    }
                    Output.error("vsh: \(error)")
                    worst = .dataError
                }
            }
            if !json {
                Output.line(
                    "\(files.count) photos: "
                        + ["accepted", "rejected", "pending", "unreadable"].compactMap { key in
                            counts[key].map { "\($0) \(key)" }
                        }.joined(separator: ", "))
            }
            return worst
        }
    }
}
