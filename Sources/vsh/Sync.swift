import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHStore

extension VSH {
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load the hunt files into the database now (every command also does this when they changed).")

        @OptionGroup var store: StoreOptions

        func run() throws {
            try CommandRunner.run(tool: "vsh") {
                let db = try store.openStore(sync: false)
                switch try db.sync(directory: store.huntsDirectory) {
                case .unchanged:
                    Output.line("\(db.path): hunts are up to date")
                case .updated(let hunts, let stops):
                    Output.line("\(db.path): loaded \(hunts) hunts with \(stops) stops from \(store.huntsDirectory)")
                }
                return .success
            }
        }
    }
}
