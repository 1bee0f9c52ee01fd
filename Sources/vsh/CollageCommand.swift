import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHPhoto
import VSHSpatiaLite

extension VSH {
    struct CollageCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "collage",
            abstract: "A JPEG collage of a player's photos of a hunt, with the stop names.")

        @OptionGroup var store: StoreOptions
        @Option(help: "The player's name.") var player: String
        @Option(help: "The hunt.") var hunt: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the JPEG.", valueName: "out.jpg"))
        var output: String

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let result = try await Collage.make(
                    player: try await db.requirePlayer(named: player), hunt: hunt, scores: db,
                    photos: store.photos(of: db))
                for warning in result.warnings { Output.error("vsh: \(warning)") }
                try JPEGCodec.write(result.image, to: output)
                Output.line(
                    "\(output): \(result.image.width) x \(result.image.height), \(result.photos) photos")
                return .success
            }
        }
    }
}
