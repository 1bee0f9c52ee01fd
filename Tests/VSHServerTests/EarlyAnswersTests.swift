import Foundation
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

    /// A cache holding the board's answer, shared (`shared`) or not, and a channel with the handler,
    /// which logs to `log` (standard error by default), `before` it in the pipeline if given.
    static func channel(
        shared: Bool = true, cors: Bool = false, maxAge: Duration = .seconds(86_400),
        log: Int32 = STDERR_FILENO,
        before: (any ChannelHandler)? = nil
    ) async throws -> (EmbeddedChannel, ReadCache, ReadCache.Entry) {
        let cache = ReadCache(maxAge: maxAge)
        let entry = try await cache.entry(board, shared: shared ? board : nil) {
            (ByteBuffer(string: body), "application/json")
        }
        let channel = EmbeddedChannel()
        if let before { try channel.pipeline.syncOperations.addHandler(before) }
        try channel.pipeline.syncOperations.addHandler(
            EarlyAnswers(
                .init(
                    cache: cache, trusted: [], cors: cors,
                    turns: EarlyTurns(structured: false, descriptor: log))))
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

    /// Everything the handler passed on to the router, and everything it sent to the client once
    /// the loop's turn ended.
    static func drain(_ channel: EmbeddedChannel) throws -> (
        passed: [HTTPRequestPart], sent: [HTTPResponsePart]
    ) {
        channel.embeddedEventLoop.run()
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

    /// What `flush` found in the log when it passed, on its way to the socket.
    final class FlushWitness: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = HTTPResponsePart
        let log: Int32
        var seen: [String] = []

        init(log: Int32) { self.log = log }

        func flush(context: ChannelHandlerContext) {
            seen.append(EarlyAnswersTests.read(log))
            context.flush()
        }
    }

    /// What the pipe `fd` holds now (it does not wait).
    static func read(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) == 1 else { break }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The answers of one turn of the loop leave together at its end, after their access lines
    /// were written.
    @Test func aTurnsLinesAreWrittenBeforeItsAnswersLeave() async throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { for fd in pipe { close(fd) } }
        let witness = FlushWitness(log: pipe[0])
        let (channel, _, _) = try await Self.channel(log: pipe[1], before: witness)
        // Two requests in one turn of the loop: both read before the loop runs its tasks.
        for _ in 0..<2 {
            channel.pipeline.fireChannelRead(Self.get())
            channel.pipeline.fireChannelRead(HTTPRequestPart.end(nil))
        }
        #expect(
            try channel.readOutbound(as: HTTPResponsePart.self) == nil, "an answer left before the turn's end"
        )
        #expect(Self.read(pipe[0]).isEmpty, "a line was written before the turn's end")
        channel.embeddedEventLoop.run()
        #expect(witness.seen.count == 2, "flushed \(witness.seen.count) times")
        let lines = witness.seen.first?.split(separator: "\n") ?? []
        #expect(lines.count == 2, "\(lines)")
        #expect(
            lines.allSatisfy { $0.contains(" info vsh: hb.request.id=") && $0.hasSuffix(" ms") }, "\(lines)")
        #expect(
            lines.allSatisfy { $0.contains("[VSHServer] 127.0.0.1 GET /v1/leaderboard 200 ") }, "\(lines)")
        let (_, sent) = try Self.drain(channel)
        #expect(sent.count == 6)
    }

    /// A turn's lines reach the log whole and in order, however many (written in pieces of whole
    /// lines of at most `PIPE_BUF` bytes; one longer line alone).
    @Test func manyLinesOfATurnArriveWholeAndInOrder() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        let turn = EarlyTurn(loop: EmbeddedEventLoop(), descriptor: pipe[1], structured: false)
        var expected = ""
        for n in 0..<300 {
            let line = "line \(n) " + String(repeating: "x", count: n == 150 ? 5_000 : n % 97) + "\n"
            expected += line
            turn.keep(line)
        }
        let readEnd = pipe[0]
        let reader = Thread { EarlyAnswersTests.got.withLock { $0 = EarlyAnswersTests.readAll(readEnd) } }
        reader.start()
        turn.end()
        close(pipe[1])
        while !reader.isFinished { usleep(1_000) }
        close(pipe[0])
        #expect(Self.got.withLock { $0 } == expected)
    }

    static let got = Mutex("")

    /// Everything the pipe `fd` gives until its writer closes.
    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theDateHeaderIsRFC9110s() {
        #expect(HTTPDate.text(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.text(1_795_824_000) == "Sat, 28 Nov 2026 00:00:00 GMT")
        #expect(HTTPDate.text(1_795_902_907) == "Sat, 28 Nov 2026 21:55:07 GMT")
        #expect(HTTPDate.text(1_835_438_709) == "Tue, 29 Feb 2028 12:05:09 GMT")
    }
}
