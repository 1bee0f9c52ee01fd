import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract:
                "Publish the hunt files into the database now, as new revisions of the hunts whose files changed (commands that record also do this; commands that only read never do)."
        )

        @OptionGroup var store: StoreOptions
        @Flag(
            help:
                "Publish the files even over newer revisions made in the organisers' console (without it, such files are refused with exit 65)."
        )
        var force = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false)
                switch try await db.sync(directory: store.huntsDirectory, force: force) {
                case .unchanged:
                    Output.line("\(db.location): hunts are up to date")
                case .updated(let hunts, let stops):
                    Output.line(
                        "\(db.location): loaded \(hunts) hunts with \(stops) stops from \(store.huntsDirectory)"
                    )
                }
                return .success
            }
        }
    }
}
