import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHPhoto
import VSHStore

extension VSH {
    struct CollageCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "collage",
            abstract: "A JPEG collage of a player's photos of a hunt, with the stop names.")

        @OptionGroup var store: StoreOptions
        @Option(help: "The player's name.") var player: String
        @Option(help: "The hunt.") var hunt: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the JPEG.", valueName: "out.jpg")) var output: String

        func run() throws {
            try CommandRunner.run(tool: "vsh") {
                let result = try Collage.make(player: player, hunt: hunt, store: try store.openStore())
                for warning in result.warnings { Output.error("vsh: \(warning)") }
                try JPEGCodec.write(result.image, to: output)
                Output.line("\(output): \(result.image.width) x \(result.image.height), \(result.photos) photos")
                return .success
            }
        }
    }
}
