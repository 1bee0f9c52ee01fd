import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHStore

@main
struct VSHMaster: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vsh-master",
        abstract: "vsh-master: author and check the hunt files in hunts/.",
        discussion: "Exit codes: 0 ok, 64 usage, 65 invalid hunt files, 66 file or folder missing, 70 internal error.",
        subcommands: [Validate.self])
}
