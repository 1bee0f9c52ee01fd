import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

@main
struct VSH: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vsh",
        abstract: "vsh: a geospatial scavenger-hunt engine.",
        discussion: """
            Hunts are folders of GeoJSON files (hunts/<id>.geojson); vsh sync, and every command that \
            records (checkin, replay, locate, player add, review approve/reject, serve), first publishes \
            them into the database when they changed; commands that only read show what is published. \
            The database (--db, VSH_DB) is a SpatiaLite file (./vsh.sqlite \
            by default) or PostgreSQL + PostGIS (postgres://user@host:port/database); vsh db copy moves a \
            league between the two. Exit codes: 0 ok, 1 check-in rejected, 2 pending \
            review, 64 usage, 65 bad input data, 66 input file missing, 70 internal error, 75 database busy.
            """,
        version: VSHVersion.current,
        subcommands: [
            Hunts.self, ShowHunt.self, Locate.self, Player.self, Players.self, CheckIn.self, Review.self,
            Leaderboard.self, Profile.self, CollageCommand.self, Exif.self, GPX.self, Replay.self,
            Rescore.self, Sync.self, Doctor.self, Serve.self, DB.self,
        ])
}
