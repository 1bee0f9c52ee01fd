import ArgumentParser
import VSHCommandSupport

@main
struct VSHMaster: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vsh-master",
        abstract: "vsh-master: author and check the hunt files in hunts/.",
        discussion: """
            Edits the GeoJSON hunt files that vsh loads: every edit is checked against the whole folder first \
            and written atomically in a stable form (fixed key order, 7 decimals), so a refused edit changes \
            nothing and an accepted one is a small diff. Exit codes: 0 ok, 64 usage, 65 invalid input, \
            66 file or folder missing, 70 internal error.
            """,
        version: VSHVersion.current,
        subcommands: [
            HuntCommand.self, StopCommand.self, Validate.self, Format.self, Export.self, Import.self,
            MapCommand.self, BasemapCommand.self, Codes.self,
        ])
}
