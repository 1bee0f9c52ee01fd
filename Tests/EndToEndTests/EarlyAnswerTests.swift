import Foundation
import Testing
import VSHCore

/// A board read while its cached answer is fresh is answered by the connection's handler
/// (`EarlyAnswers` in `vsh serve`), not the router: on a real `vsh serve`, over one connection,
/// the client and the log see the router's answer and line again, and answers keep their order.
@Suite struct EarlyAnswerTests {
    static let board = "GET /v1/leaderboard HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// A response head without its Date line, which changes with the second.
    static func withoutDate(_ head: String) -> String {
        head.split(separator: "\r\n").filter { !$0.lowercased().hasPrefix("date:") }.joined(separator: "\n")
    }

    /// A log line without what differs between two requests: its time, the request's id and its
    /// duration.
    static func plain(_ line: Substring) -> String {
        String(
            line.replacing(/^\S+\s/, with: "").replacing(
                /hb\.request\.id=[0-9a-f]+/, with: "hb.request.id=ID"
            )
            .replacing(/\ [0-9]+\.[0-9] ms$/, with: " _ ms"))
    }

    @Test func aBoardReadAgainGetsTheRoutersAnswerAndLogLine() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let token = try await server.register("Ann Lee", email: "ann@example.com")
        #expect(
            try await OperationsTests.deviceCheckIn(server, token: token, "36.082014", "-115.172734") == 201)
        let connection = try RawConnection(port: server.port)
        try connection.send(Self.board)
        let first = connection.readResponse(seconds: 20)
        try connection.send(Self.board)
        let second = connection.readResponse(seconds: 20)
        #expect(first.head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(first.head)")
        #expect(first.body.contains("Ann Lee"), "\(first.body)")
        #expect(Self.withoutDate(second.head) == Self.withoutDate(first.head))
        #expect(second.body == first.body)
        let lines = server.log.split(separator: "\n").filter { $0.contains(" /v1/leaderboard ") }
        #expect(lines.count == 2, "\(lines)")
        #expect(Set(lines.map(Self.plain)).count == 1, "\(lines)")
        #expect(lines.allSatisfy { $0.contains("127.0.0.1 GET /v1/leaderboard 200 ") })
    }

    /// A board asked for behind a sign-in (bcrypt: the router takes a while) on the same
    /// connection is answered after it, as HTTP/1.1 requires.
    @Test func answersKeepTheOrderOfTheirRequests() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        _ = try await server.register("Ann Lee", email: "ann@example.com")
        let connection = try RawConnection(port: server.port)
        try connection.send(Self.board)
        #expect(connection.readResponse(seconds: 20).head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        let signIn = #"{"username":"Ann Lee","password":"not the password"}"#
        try connection.send(
            "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(signIn.utf8.count)\r\n\r\n\(signIn)" + Self.board)
        let refused = connection.readResponse(seconds: 20)
        let read = connection.readResponse(seconds: 20)
        #expect(refused.head.hasPrefix("HTTP/1.1 401"), "\(refused.head)")
        #expect(refused.body.contains("problem") || refused.head.contains("problem+json"), "\(refused)")
        #expect(read.head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(read.head)")
        #expect(read.body.hasPrefix("["), "\(read.body)")
    }
}
