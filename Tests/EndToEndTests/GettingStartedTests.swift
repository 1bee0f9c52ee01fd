import Foundation
import Testing
import VSHTestSupport

/// The README's "Getting started" block, run as written in an empty folder with the built commands
/// on the PATH (its `make install` line is what puts them there).
@Suite struct GettingStartedTests {
    /// The first ```sh block of the README after `heading`.
    static func readmeBlock(after heading: String) throws -> String {
        let readme = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: heading))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test func theReadmesGettingStartedWorksAsWritten() throws {
        let lines = try Self.readmeBlock(after: "### Getting started").split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("make install PREFIX=") == true)
        let script = (["set -euo pipefail"] + lines.dropFirst()).joined(separator: "\n")
        #expect(script.contains("vsh checkin"))

        let folder = try TestSupport.temporaryDirectory("vsh-getting-started")
        let result = try TestSupport.run(
            "/bin/bash", ["-c", "export PATH=\"$0:$PATH\"\n" + script, TestSupport.productsDirectory.path],
            currentDirectory: folder)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("./hunts: folder created"))
        #expect(result.stdout.contains("ACCEPTED: MGM Grand Lion (my-first-hunt) · +30 points"))
        #expect(result.stdout.contains("Ann Lee      30"), "\(result.stdout)")
    }

    /// The README's authoring example, run as written from a copy of the project's folder (its
    /// hunts and fixtures): every file it names exists, and every command succeeds.
    @Test func theReadmesAuthoringExampleWorksAsWritten() throws {
        let block = try Self.readmeBlock(after: "## Authoring hunts: `vsh-master`")
        #expect(block.contains("vsh-master stop add") && block.contains("Fixtures/authoring/"))
        let folder = try TestSupport.temporaryDirectory("vsh-authoring")
        defer { TestSupport.remove(folder) }
        try FileManager.default.copyItem(
            at: TestSupport.packageRoot.appendingPathComponent("hunts"),
            to: folder.appendingPathComponent("hunts"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("Fixtures"),
            withDestinationURL: TestSupport.packageRoot.appendingPathComponent("Fixtures"))
        let result = try TestSupport.run(
            "/bin/bash",
            [
                "-c", "export PATH=\"$0:$PATH\"\nset -euo pipefail\n" + block,
                TestSupport.productsDirectory.path,
            ],
            currentDirectory: folder)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("added el-cortez"), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("arts-walk.kml").path))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("strip.svg").path))
    }
}
