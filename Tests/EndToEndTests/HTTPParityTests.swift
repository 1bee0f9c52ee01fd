import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every fixture photo checked in over HTTP (`vsh serve --now`) and through `vsh checkin` on two fresh
/// databases, in the same order: the same verdict, rules, stop and points; a photo without GPS (sent
/// alone) is a rejection on the command line and a 422 that records nothing over HTTP.
@Suite struct HTTPParityTests {
    @Test func httpAndTheCommandLineGiveTheSameVerdicts() async throws {
        let cli = try Workspace()
        let http = try Workspace()
        #expect(try cli.vsh(["player", "add", "Pat"]).status == 0)
        let server = try ServedVSH(workspace: http, extra: ["--now", fixtureNow])
        defer { server.stop() }
        var register = URLRequest(url: URL(string: server.base + "/v1/accounts")!)
        register.httpMethod = "POST"
        register.setValue("application/json", forHTTPHeaderField: "Content-Type")
        register.httpBody = Data(
            #"{"username":"Pat","email":"pat@example.org","password":"tumbling dice"}"#.utf8)
        let (registered, _) = try await URLSession.shared.data(for: register)
        guard case .string(let token)? = try json(String(decoding: registered, as: UTF8.self))["token"] else {
            throw FixtureError("no token")
        }
        let photos = try FileManager.default.contentsOfDirectory(
            atPath: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos").path
        ).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(photos.count >= 20)
        var compared = 0
        var positionless = 0
        for photo in photos {
            let path = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/\(photo)")
            let viaCLI = try TestSupport.run(
                "vsh",
                [
                    "checkin", "--player", "Pat", "--photo", path.path, "--now", fixtureNow, "--json", "--db",
                    cli.db, "--hunts", cli.hunts,
                ])
            var request = URLRequest(url: URL(string: server.base + "/v1/checkins")!)
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue("multipart/form-data; boundary=parity", forHTTPHeaderField: "Content-Type")
            var body = Data(
                "--parity\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(photo)\"\r\n\r\n"
                    .utf8)
            body.append(try Data(contentsOf: path))
            body.append(Data("\r\n--parity--\r\n".utf8))
            request.httpBody = body
            let (answer, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if viaCLI.status == 65 {
                // Unreadable photos: refused by both, recorded by neither.
                #expect(status == 422, "\(photo): \(String(decoding: answer, as: UTF8.self))")
                continue
            }
            let a = try json(viaCLI.stdout)
            if viaCLI.stdout.contains("the photo has no usable GPS position") {
                // No position at all: the command line records a rejection, the service refuses to
                // spend the photo (422 "No position"; a phone sends its fix with it).
                #expect(a["verdict"]?.string == "rejected", "\(photo)")
                #expect(status == 422, "\(photo): \(String(decoding: answer, as: UTF8.self))")
                positionless += 1
                continue
            }
            #expect(status == 201, "\(photo): \(String(decoding: answer, as: UTF8.self))")
            let b = try json(String(decoding: answer, as: UTF8.self))
            // Check-in numbers in the rules' words differ by the positionless photo the command line recorded.
            func words(_ value: JSONValue?) -> String {
                (value?.compactText ?? "null").replacing(#/#\d+/#, with: "#N")
            }
            for key in ["verdict", "hunt", "stop", "points", "rules", "awards"] {
                #expect(words(a[key]) == words(b[key]), "\(photo): \(key)")
            }
            compared += 1
        }
        #expect(compared >= 18)
        #expect(positionless >= 1, "no fixture photo without GPS was compared")
    }
}
