import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import VSHServer

/// `EarlyAnswers`: a fresh answer that is the same for everyone is sent from the connection's
/// handler, as the router would send it; everything else reaches the router untouched and in
/// order. On an embedded channel: what the handler passes on is what the router would read, and
/// what it writes is what the client would get.
@Suite struct EarlyAnswersTests {
    static let board = "/v1/leaderboard"
    static let body = #"[{"rank":1,"player":"Ann Lee","points":50}]"#

    /// A cache holding the board's answer, shared (`shared`) or not, and a channel with the handler.
    static func channel(shared: Bool = true, cors: Bool = false, maxAge: Duration = .seconds(86_400))
        async throws
        -> (EmbeddedChannel, ReadCache, ReadCache.Entry)
    {
        let cache = ReadCache(maxAge: maxAge)
        let entry = try await cache.entry(board, shared: shared ? board : nil) {
            (ByteBuffer(string: body), "application/json")
        }
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            EarlyAnswers(
                .init(
                    cache: cache, trusted: [], cors: cors, structured: false,
                    logger: Logger(label: "vsh-test"))))
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return (channel, cache, entry)
    }

    static func get(_ path: String = board, _ fields: HTTPFields = [:], method: HTTPRequest.Method = .get)
        -> HTTPRequestPart
    {
        .head(
            HTTPRequest(
                method: method, scheme: "http", authority: "127.0.0.1", path: path, headerFields: fields))
    }

    /// Everything the handler passed on to the router, and everything it wrote to the client.
    static func drain(_ channel: EmbeddedChannel) throws -> (
        passed: [HTTPRequestPart], sent: [HTTPResponsePart]
    ) {
        var passed: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { passed.append(part) }
        var sent: [HTTPResponsePart] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) { sent.append(part) }
        return (passed, sent)
    }

    @Test func aFreshSharedAnswerIsSentAsTheRouterWouldSendIt() async throws {
        let (channel, cache, entry) = try await Self.channel()
        try channel.writeInbound(Self.get())
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (passed, sent) = try Self.drain(channel)
        #expect(passed.isEmpty, "the router was asked: \(passed)")
        #expect(sent.count == 3)
        guard case .head(let head) = sent.first, case .body(let body) = sent.dropFirst().first,
            case .end = sent.last
        else {
            Issue.record("not a head, a body and an end: \(sent)")
            return
        }
        #expect(head.status == .ok)
        // The router's headers (`ReadCache.answer`), then what Hummingbird's writer adds.
        var expected = entry.head(ifNoneMatch: nil).1
        expected[.contentLength] = String(Self.body.utf8.count)
        expected[.date] = head.headerFields[.date]
        expected[.server] = "vsh"
        #expect(head.headerFields == expected)
        #expect(head.headerFields[.date]?.hasSuffix(" GMT") == true)
        #expect(String(buffer: body) == Self.body)
        #expect(cache.sentEarly.load(ordering: .relaxed) == 1)
    }

    @Test func theETagSentBackGets304WithoutABody() async throws {
        let (channel, _, entry) = try await Self.channel()
        try channel.writeInbound(Self.get(Self.board, [.ifNoneMatch: "\"other\", \(entry.etag)"]))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        let (passed, sent) = try Self.drain(channel)
        #expect(passed.isEmpty)
        guard case .head(let head) = sent.first else {
            Issue.record("no head: \(sent)")
            return
        }
        #expect(head.status == .notModified)
        #expect(head.headerFields[.eTag] == entry.etag)
        #expect(sent.count == 2, "a 304 has no body: \(sent)")
    }

    /// Requests the handler must not answer reach the router whole and in order.
    @Test(arguments: [
        "not shared", "stale", "another URI", "POST", "HEAD", "Connection: close", "Origin with CORS",
        "a body",
    ])
    func whatIsNotAFreshSharedPlainGETGoesToTheRouter(_ what: String) async throws {
        let (channel, cache, _) = try await Self.channel(
            shared: what != "not shared", cors: what == "Origin with CORS",
            maxAge: what == "stale" ? .zero : .seconds(86_400))
        let head: HTTPRequestPart =
            switch what {
            case "another URI": Self.get(Self.board + "?limit=5")
            case "POST": Self.get(method: .post)
            case "HEAD": Self.get(method: .head)
            case "Connection: close": Self.get(Self.board, [.connection: "close"])
            case "Origin with CORS": Self.get(Self.board, [.origin: "https://hunt.example"])
            default: Self.get()
            }
        var parts = [head]
        if what == "a body" { parts.append(.body(ByteBuffer(string: "{}"))) }
        parts.append(.end(nil))
        for part in parts { try channel.writeInbound(part) }
        let (passed, sent) = try Self.drain(channel)
        #expect(sent.isEmpty, "answered: \(sent)")
        #expect(passed == parts)
        #expect(cache.sentEarly.load(ordering: .relaxed) == 0)
    }

    /// HTTP/1.1 answers in order: a board asked for while the router still answers an earlier
    /// request on the connection goes to the router too; once that answer ended, the next is early.
    @Test func aRequestBehindOneTheRouterIsAnsweringWaitsItsTurn() async throws {
        let (channel, cache, _) = try await Self.channel()
        let slow: [HTTPRequestPart] = [Self.get("/v1/sessions", method: .post), .end(nil)]
        let read: [HTTPRequestPart] = [Self.get(), .end(nil)]
        for part in slow + read { try channel.writeInbound(part) }
        var (passed, sent) = try Self.drain(channel)
        #expect(passed == slow + read)
        #expect(sent.isEmpty)
        // The router answers both.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        _ = try Self.drain(channel)
        for part in read { try channel.writeInbound(part) }
        (passed, sent) = try Self.drain(channel)
        #expect(passed.isEmpty)
        #expect(sent.count == 3)
        #expect(cache.sentEarly.load(ordering: .relaxed) == 1)
    }

    @Test func theDateHeaderIsRFC9110s() {
        #expect(HTTPDate.text(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.text(1_795_824_000) == "Sat, 28 Nov 2026 00:00:00 GMT")
        #expect(HTTPDate.text(1_795_902_907) == "Sat, 28 Nov 2026 21:55:07 GMT")
        #expect(HTTPDate.text(1_835_438_709) == "Tue, 29 Feb 2028 12:05:09 GMT")
    }
}
