import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHPhoto

extension VSH {
    struct Exif: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the verifier reads from photos (EXIF GPS position, times, accuracy, camera).",
            discussion: """
                Reads only the JPEG's metadata segments, never the pixels. Latitude and longitude are signed \
                decimal degrees; taken_at is the camera's wall clock, with its offset when the camera wrote one. \
                Exit 65 when any file is not a readable JPEG (66 when it cannot be opened).
                """)

        @Argument(help: ArgumentHelp("JPEG files.", valueName: "photo")) var photos: [String]
        @Flag(help: "One JSON object a line (shape in the README).") var json = false

        func run() throws {
            try CommandRunner.run(tool: "vsh") {
                var worst = ExitStatus.success
                for path in photos {
                    do throws(PhotoError) {
                        let metadata = try PhotoReader.metadata(path: path)
                        if json {
                            Output.line(PhotoJSON.metadata(metadata, file: path).compactText)
                        } else {
                            PhotoJSON.describe(metadata, file: path).forEach(Output.line)
                        }
                    } catch {
                        if json {
                            Output.line(JSONValue.object(["file": .string(path), "error": .string(error.reason)]).compactText)
                        } else {
                            Output.error("vsh: \(error)")
                        }
                        if worst == .success || error.exitStatus == .noInput { worst = error.exitStatus }
                    }
                }
                return worst
            }
        }
    }
}
