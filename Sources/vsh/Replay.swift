import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Replay a recorded walk (GPX) through the engine: enter, check-in, exit events.",
            discussion: """
                Each stay of at least --dwell seconds at a stop becomes a check-in through the same rules as a \
                device check-in. With --dry-run nothing is written and each check-in is received at its fix's own \
                time (the walk's timeline, to test a hunt before it goes live): on a SpatiaLite file the replay runs \
                on a private copy of it; on PostgreSQL, in one transaction that is rolled back. Without it the \
                check-ins are recorded as received now (--now sets the clock), so the freshness rules judge an old \
                walk as any late fix: points older than the hunt's max_fix_age_s wait for review, older than its \
                max_photo_age_s are rejected. Events print one a line (--json: {time, event, hunt, stop, points, \
                verdict}, and for a check-in not accepted its reason).
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("A GPX file with a timed track.", valueName: "file.gpx")) var file:
            String
        @Option(help: "The player the walk belongs to.") var player: String
        @Option(help: "Only this hunt's stops.") var hunt: String?
        @Option(help: ArgumentHelp("Seconds at a stop before a check-in.", valueName: "seconds")) var dwell:
            Double = 10
        @Flag(help: "Write nothing to the database; receive each check-in at its fix's time.") var dryRun =
            false
        @Option(
            help: ArgumentHelp(
                "Use this time as now for the check-ins a replay records (RFC 3339).", valueName: "time"))
        var now: String?
        @Flag(help: "One JSON object a line.") var json = false
        @Option(help: ArgumentHelp("Also draw the walk and the stops as an SVG map.", valueName: "out.svg"))
        var map: String?

        func validate() throws {
            guard dwell >= 0 && dwell <= 86_400 else {
                throw ValidationError("--dwell takes 0 to 86400 seconds")
            }
            if dryRun, now != nil {
                throw ValidationError(
                    "--now goes with a replay that records; a dry run keeps the walk's own clock")
            }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let live = try await store.openStore()
                guard dryRun else { return try await replay(on: live, receivedAt: try Clock.now(now)) }
                guard let source = live as? any DryRunStore else {
                    throw InputError("--dry-run is not available on this database", status: .usage)
                }
                return try await source.dryRun { view in try await replay(on: view, receivedAt: nil) }
            }
        }

        /// Replays the walk into `db` (the league itself, or a dry run's view of it).
        func replay(on db: any LeagueStore, receivedAt: Date?) async throws -> ExitStatus {
            var replayer = Replayer(
                store: db, player: try await db.requirePlayer(named: player), huntID: hunt)
            replayer.receivedAt = receivedAt
            replayer.dwellSeconds = dwell
            replayer.keepTrack = map != nil
            // The walk's times and the rules' words on the hunt's clock.
            let clock = json ? HuntClock(hunts: []) : try await HuntClock.of(db)
            let summary = try await replayer.run(path: file) { event in
                if json {
                    Output.line(event.json.compactText)
                } else {
                    var line =
                        clock.second(event.time, hunt: event.huntID) + "  "
                        + event.kind.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)
                    line +=
                        event.huntID + (event.stopID.map { "/" + $0 } ?? "")
                        + (event.badgeID.map { " " + $0 } ?? "")
                    if let verdict = event.verdict { line += "  " + verdict }
                    if event.points > 0 { line += "  +\(event.points)" }
                    if let reason = event.reason { line += ": " + clock.words(reason, hunt: event.huntID) }
                    Output.line(line)
                }
            }
            for warning in summary.warnings.prefix(20) { Output.error("vsh: \(warning)") }
            if summary.warnings.count > 20 {
                Output.error("vsh: ... and \(summary.warnings.count - 20) more warnings")
            }
            if let map {
                let hunts = try await db.hunts().map(\.hunt).filter { hunt == nil || $0.id == hunt }
                try MapRenderer.write(hunts: hunts, track: summary.track, to: map)
            }
            return .success
        }
    }
}
