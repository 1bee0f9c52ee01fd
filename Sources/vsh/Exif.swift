import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHPhoto

extension VSH {
    struct Exif: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exif",
            abstract:
                "Show what the verifier reads from photos (EXIF GPS position, times, accuracy, camera).",
            discussion: """
                Reads only the JPEG's metadata segments, never the pixels. Latitude and longitude are signed \
                decimal degrees; taken_at is the camera's wall clock, with its offset when the camera wrote one. \
                Exit 65 when any file is not a readable JPEG (66 when it cannot be opened).
                """)

        @Argument(help: ArgumentHelp("JPEG files, or folders of them.", valueName: "photo")) var photos:
            [String]
        @Flag(help: "One JSON object a line (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                // Every core: the files are split into chunks read in parallel; lines print in input order.
                let json = self.json
                let width = ProcessInfo.processInfo.activeProcessorCount
                let results = await BoundedParallel.map(try PhotoFiles.expand(photos), width: width) {
                    path -> (line: String, error: PhotoError?) in
                    do throws(PhotoError) {
                        let metadata = try PhotoReader.metadata(path: path)
                        let line =
                            json
                            ? PhotoJSON.metadata(metadata, file: path).compactText
                            : PhotoJSON.describe(metadata, file: path).joined(separator: "\n")
                        return (line, nil)
                    } catch {
                        let line =
                            json
                            ? JSONValue.object(["file": .string(path), "error": .string(error.reason)])
                                .compactText : ""
                        return (line, error)
                    }
                }
                var worst = ExitStatus.success
                for result in results {
                    if let error = result.error {
                        if json { Output.line(result.line) } else { Output.error("vsh: \(error)") }
                        if worst == .success || error.errorKind == .unavailableInput {
                            worst = ExitStatus(error.errorKind)
                        }
                    } else {
                        Output.line(result.line)
                    }
                }
                return worst
            }
        }
    }
}
