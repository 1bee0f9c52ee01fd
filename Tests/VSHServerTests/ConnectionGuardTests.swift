import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import VSHServer

/// The body-rate rule of `ConnectionGuard` (Apache's mod_reqtimeout): once `graceSeconds` have
/// passed since a request's head, its body must have averaged `minBytesPerSecond`, or the
/// connection is closed. On an embedded channel whose clock the test moves, so that no test waits
/// for real seconds: each socket read is a `channelRead` per part, then one `channelReadComplete`.
@Suite struct ConnectionGuardTests {
    static let grace = 30
    static let rate = 1_000

    /// A channel with the guard and its loop.
    static func channel(counts: ConnectionCounts = ConnectionCounts(maxTotal: 100, maxPerAddress: 100)) throws
        -> (EmbeddedChannel, EmbeddedEventLoop)
    {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(
            ConnectionGuard(counts: counts, graceSeconds: grace, minBytesPerSecond: rate))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, loop)
    }

    /// One read of the socket: these parts, then the read's end.
    static func read(_ channel: EmbeddedChannel, _ parts: HTTPRequestPart...) throws {
        for part in parts { try channel.writeInbound(part) }
        channel.pipeline.fireChannelReadComplete()
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
    }

    static let upload = HTTPRequestPart.head(
        HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/v1/checkins"))
    static let get = HTTPRequestPart.head(
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/v1/leaderboard"))

    static func bytes(_ count: Int) -> HTTPRequestPart {
        .body(ByteBuffer(repeating: 0x61, count: count))
    }

    /// A body trickled at 100 bytes a second lives out its grace, then is closed by the time its
    /// bytes are worth a second each at the minimum rate.
    @Test func aTrickledBodyIsClosedAfterItsGrace() throws {
        let (channel, loop) = try Self.channel()
        try Self.read(channel, Self.upload)
        var seconds = 0
        while channel.isActive && seconds < 120 {
            loop.advanceTime(by: .seconds(1))
            seconds += 1
            if channel.isActive { try Self.read(channel, Self.bytes(100)) }
        }
        #expect(!channel.isActive)
        // Closed once the grace and the 100 bytes a second's allowance (0.1 s a second) passed.
        #expect(seconds > Self.grace && seconds <= Self.grace + 5, "closed after \(seconds) s")
    }

    /// A body that stops after its head is closed when the grace ends, not before.
    @Test func aBodyThatStopsIsClosedWhenTheGraceEnds() throws {
        let (channel, loop) = try Self.channel()
        try Self.read(channel, Self.upload, Self.bytes(500))
        loop.advanceTime(by: .seconds(Int64(Self.grace) - 1))
        #expect(channel.isActive)
        // 500 bytes bought half a second.
        loop.advanceTime(by: .milliseconds(1_400))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive)
    }

    /// A body at twice the minimum rate is never closed, however long it takes; its end stops the check.
    @Test func aBodyFasterThanTheMinimumIsServed() throws {
        let (channel, loop) = try Self.channel()
        try Self.read(channel, Self.upload)
        for _ in 0..<300 {
            loop.advanceTime(by: .seconds(1))
            try Self.read(channel, Self.bytes(2 * Self.rate))
        }
        #expect(channel.isActive)
        try Self.read(channel, .end(nil))
        loop.advanceTime(by: .seconds(86_400))
        #expect(channel.isActive)
    }

    /// Requests whose head and end come in one read (a GET), one after the other on a kept-alive
    /// connection, never close it; nor does time after them.
    @Test func wholeRequestsAreNeverClosed() throws {
        let (channel, loop) = try Self.channel()
        for _ in 0..<100 {
            try Self.read(channel, Self.get, .end(nil))
            loop.advanceTime(by: .seconds(10))
        }
        try Self.read(channel, Self.get, .end(nil), Self.get, .end(nil))
        loop.advanceTime(by: .seconds(86_400))
        #expect(channel.isActive)
    }

    /// The grace counts from each request's own head: a request that follows a finished one on
    /// the same connection, in the same read as its end, gets the whole grace again.
    @Test func eachRequestHasItsOwnGrace() throws {
        let (channel, loop) = try Self.channel()
        try Self.read(channel, Self.upload, Self.bytes(10))
        loop.advanceTime(by: .seconds(Int64(Self.grace) - 2))
        try Self.read(channel, .end(nil), Self.upload)
        loop.advanceTime(by: .seconds(Int64(Self.grace) - 2))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(3))
        #expect(!channel.isActive)
    }

    /// The caps: a connection over the per-address count is closed as it opens, and one that
    /// closes frees its place.
    @Test func connectionsOverTheCapAreClosed() throws {
        let counts = ConnectionCounts(maxTotal: 100, maxPerAddress: 2)
        let (first, _) = try Self.channel(counts: counts)
        let (second, _) = try Self.channel(counts: counts)
        let (third, _) = try Self.channel(counts: counts)
        #expect(first.isActive && second.isActive)
        #expect(!third.isActive)
        _ = try first.finish()
        let (fourth, _) = try Self.channel(counts: counts)
        #expect(fourth.isActive)
    }
}
