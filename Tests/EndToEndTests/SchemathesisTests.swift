import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// schemathesis (PyPI) against the served OpenAPI document, through the real binary: bounded
/// (20 examples an operation, a fixed seed), no 5xx, every status, content type and body as documented.
@Suite struct SchemathesisTests {
    @Test func everyAnswerMatchesTheDocument() async throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["player", "add", "Sam Test"]).status == 0)
        let password = try TestSupport.run(
            "vsh", ["player", "password", "Sam Test", "--db", workspace.db, "--hunts", workspace.hunts],
            stdin: Data("long enough pw\n".utf8))
        #expect(password.status == 0)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }

        var request = URLRequest(url: URL(string: server.base + "/v1/sessions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username":"Sam Test","password":"long enough pw"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        guard case .object(let session) = try json(String(decoding: data, as: UTF8.self)),
            case .string(let token)? = session["token"]
        else { throw FixtureError("no token: \(String(decoding: data, as: UTF8.self))") }

        // Through the interpreter `make test-deps` installed it into (no console script on PATH needed).
        let run = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
                "run", server.base + "/openapi.json",
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
                "--max-examples", "20", "--seed", "1", "--header", "Authorization: Bearer \(token)",
            ],
            // schemathesis keeps a cache in its working folder: the workspace, not the project.
            currentDirectory: workspace.root)
        #expect(run.status == 0, "\(run.stdout.suffix(4000))\n\(run.stderr.suffix(2000))")
        #expect(run.stdout.contains("passed"))
        // Every operation schemathesis found in the document was tested ("Selected: n/n", "Tested: n").
        let selected = run.stdout.split(separator: "\n").first { $0.contains("Selected:") }
        let numbers = selected?.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) } ?? []
        #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[0] >= 17, "\(selected ?? "")")
        #expect(run.stdout.contains("Tested: \(numbers.first ?? -1)\n"), "not every operation was tested")
    }
}
