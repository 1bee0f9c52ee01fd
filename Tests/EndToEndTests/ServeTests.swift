import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `vsh serve` as a process: the listening line, real HTTP on a free loopback port, SIGTERM.
@Suite struct ServeTests {
    @Test func servesOnAFreePortAndStopsCleanlyOnSIGTERM() async throws {
        let workspace = try Workspace()
        let process = Process()
        process.executableURL = TestSupport.productsDirectory.appendingPathComponent("vsh")
        process.arguments = ["serve", "--port", "0", "--db", workspace.db, "--hunts", workspace.hunts]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // The one line, once it accepts connections.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        let pattern = #/^listening on http://127\.0\.0\.1:(\d+)\n$/#
        let match = try #require(text.firstMatch(of: pattern), "\(text)")
        let port = try #require(Int(match.1))
        #expect(port > 0 && port != 8080)

        let base = "http://127.0.0.1:\(port)"
        let (health, healthResponse) = try await URLSession.shared.data(from: URL(string: base + "/healthz")!)
        #expect((healthResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: health, as: UTF8.self) == #"{"status":"ok"}"#)
        var request = URLRequest(url: URL(string: base + "/v1/sessions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username":"Nobody","password":"secret words here"}"#.utf8)
        let (_, denied) = try await URLSession.shared.data(for: request)
        #expect((denied as? HTTPURLResponse)?.statusCode == 401)
        #expect(
            (denied as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
                == "application/problem+json")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // Logs name the route template, never the password or the body.
        #expect(log.contains("/v1/sessions"))
        #expect(!log.contains("secret words"))
    }
}
