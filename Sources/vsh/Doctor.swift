import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the database: SQLite integrity, archived photos and score totals.",
            discussion: """
                Runs PRAGMA integrity_check and foreign_key_check, looks for every check-in's photo in the \
                archive beside the database and checks that it is still that photo (its SHA-256; a damaged \
                one is rewritten when the same photo is checked in again), and recomputes every player's points from the check-ins \
                (rolled back: nothing changes). Exit 0 when all is well, 65 when something is wrong. \
                The hunt files are not synced first.
                """)

        @OptionGroup var store: StoreOptions
        @Flag(
            help:
                "One JSON object: {ok, integrity, foreign_key_violations, players, checkins, stops, missing_photos, damaged_photos, wrong_totals}."
        )
        var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let health = try await db.health(photos: store.photos(of: db))
                if json {
                    Output.line(
                        JSONValue.object([
                            "ok": .bool(health.isHealthy),
                            "integrity": .array(health.integrity.map(JSONValue.string)),
                            "foreign_key_violations": .int(health.foreignKeyViolations),
                            "players": .int(health.players),
                            "checkins": .int(health.checkIns), "stops": .int(health.stops),
                            "missing_photos": .int(health.missingPhotos),
                            "damaged_photos": .int(health.damagedPhotos),
                            "wrong_totals": .int(health.playersWithWrongTotals),
                            "wrong_team_totals": .int(health.teamsWithWrongTotals),
                        ]).compactText)
                } else {
                    let integrity =
                        health.integrity == ["ok"] ? "ok" : health.integrity.prefix(5).joined(separator: "; ")
                    Output.line("\(db.location): integrity \(integrity)")
                    Output.line(
                        "  \(health.stops) stops, \(health.players) players, \(health.checkIns) check-ins")
                    Output.line("  foreign-key violations: \(health.foreignKeyViolations)")
                    Output.line(
                        "  check-ins whose photo is missing from the archive: \(health.missingPhotos)")
                    Output.line(
                        "  check-ins whose archived photo is damaged (not the photo it was): \(health.damagedPhotos)"
                    )
                    Output.line(
                        "  players whose points differ from a rescore: \(health.playersWithWrongTotals)")
                    Output.line("  teams whose points differ from a rescore: \(health.teamsWithWrongTotals)")
                }
                guard health.isHealthy else {
                    throw InputError(
                        "\(db.location): the database has problems (see above); restore a backup or run vsh rescore"
                    )
                }
                return .success
            }
        }
    }
}
