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
                "Publish the hunt files into the database now (commands that record also do this when they changed; commands that only read never do)."
        )

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false)
                switch try await db.sync(directory: store.huntsDirectory) {
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
