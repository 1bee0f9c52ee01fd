import Foundation
import Testing
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many phones at once against the real `vsh serve`: 16 clients send 100 check-ins each, all at
/// the same time. Group commit must record every answered check-in exactly once, and the points
/// must equal a rescore.
@Suite struct ServeConcurrencyTests {
    static let clients = 16
    static let checkInsPerClient = 100

    @Test func sixteenClientsTimesAHundredCheckInsAreRecordedOnceWithExactTotals() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(
            workspace: workspace, extra: ["--now", fixtureNow, "--checkins-per-minute", "100000"])
        var tokens: [String] = []
        for client in 0..<Self.clients {
            tokens.append(try await server.register("Phone \(client)", email: "p\(client)@example.org"))
        }
        let places = try ConcurrencyTests.landmarks()
        let start = try #require(RFC3339.parse("2026-11-21T13:50:00Z"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = Self.clients
        let session = URLSession(configuration: configuration)
        let base = server.base
        // Each client: 100 device fixes along the landmarks, one after another, all clients at once.
        let answers = try await withThrowingTaskGroup(of: [(client: Int, status: Int, id: Int?)].self) {
            group in
            for (client, token) in tokens.enumerated() {
                group.addTask {
                    var mine: [(client: Int, status: Int, id: Int?)] = []
                    for n in 0..<Self.checkInsPerClient {
                        let place = places[(n + client) % places.count].split(separator: ",")
                        let time = RFC3339.format(start.addingTimeInterval(Double(n) * 100 + Double(client)))
                        let boundary = "b\(client)-\(n)"
                        var body = ""
                        for (name, value) in [
                            ("lat", String(place[0])), ("lon", String(place[1])), ("accuracy_m", "8"),
                            ("fix_time", time),
                        ] {
                            body +=
                                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
                        }
                        body += "--\(boundary)--\r\n"
                        var request = URLRequest(url: URL(string: base + "/v1/checkins")!)
                        request.httpMethod = "POST"
                        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                        request.setValue(
                            "multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
                        request.httpBody = Data(body.utf8)
                        let (data, response) = try await session.data(for: request)
                        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                        let id = (try? json(String(decoding: data, as: UTF8.self)))?["id"]?.int
                        mine.append((client, status, id))
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(answers.count == Self.clients * Self.checkInsPerClient)
        let created = answers.filter { $0.status == 201 }
        #expect(created.count == answers.count, "statuses: \(Set(answers.map { $0.status }))")
        let ids = created.compactMap { $0.id }
        #expect(ids.count == created.count)
        #expect(Set(ids).count == ids.count, "an id answered twice")
        server.stop()
        #expect(server.process.terminationStatus == 0)

        // In the database: exactly the answered check-ins, each under its player.
        let store = try await SpatiaLiteStore.open(path: workspace.db, hunts: nil)
        var recorded: [Int: Set<Int>] = [:]
        for player in try await store.players() {
            let profile = try await store.profile(player: player.id, recent: 1000)
            let client = Int(player.name.split(separator: " ").last!)!
            recorded[client] = Set(profile.recent.map { Int($0.id) })
        }
        for client in 0..<Self.clients {
            #expect(recorded[client] == Set(created.filter { $0.client == client }.compactMap { $0.id }))
        }
        // Totals equal a rescore, and the database is sound.
        let doctor = try workspace.vsh(["doctor"])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
    }
}
