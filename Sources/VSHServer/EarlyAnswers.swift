#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Answers a request for a cached answer that is the same for everyone (a leaderboard while it is
/// fresh, `ReadCache.Entry.shared`) on the connection's event loop, before the request reaches the
/// router: the same status, headers, body, log line and metrics as the router's answer, without
/// the trip through Hummingbird's request task. At an event every open board reads again after
/// each check-in, so these are most of a busy server's requests; sent here one costs about half of
/// vsh's CPU.
///
/// It sits after Hummingbird's connection-state handler, which so counts these requests for its
/// idle timeout and for a graceful shutdown like the others. Anything else goes on to the router
/// untouched: a method other than GET, a request with a body, a `Connection` header, or (with CORS
/// on) an `Origin` header, a URI without a fresh shared answer, and every request while an earlier
/// one on the connection still waits for the router's answer (HTTP/1.1 answers in order).
final class EarlyAnswers: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What every connection's handler shares.
    struct Settings: Sendable {
        let cache: ReadCache
        let trusted: [AddressRange]
        /// CORS is on: a request with an `Origin` header gets its headers from the router.
        let cors: Bool
        /// Each event loop's turn of early answers, with its logger.
        let turns: EarlyTurns
    }

    let settings: Settings
    /// This connection's event loop's turn (set when the handler is added).
    private var turn: EarlyTurn?
    /// A request held to be answered here once its end arrives.
    private var held: (request: HTTPRequest, entry: ReadCache.Entry, start: ContinuousClock.Instant)?
    /// Requests passed on to the router whose answer has not ended yet.
    private var passed = 0

    init(_ settings: Settings) { self.settings = settings }

    func handlerAdded(context: ChannelHandlerContext) {
        turn = settings.turns.turn(on: context.eventLoop)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let request):
            if passed == 0, turn != nil, let entry = answerable(request) {
                held = (request, entry, ContinuousClock.now)
                return
            }
            passed += 1
        case .body:
            // A GET with a body: the router decides what that means.
            if let waiting = held {
                held = nil
                passed += 1
                context.fireChannelRead(wrapInboundOut(.head(waiting.request)))
            }
        case .end:
            if let waiting = held {
                held = nil
                answer(context, waiting.request, waiting.entry, since: waiting.start)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passed = max(0, passed - 1) }
        context.write(data, promise: promise)
    }

    /// The fresh shared answer for `request`, when it may be sent here.
    private func answerable(_ request: HTTPRequest) -> ReadCache.Entry? {
        guard request.method == .get, let path = request.path, request.headerFields[.connection] == nil,
            !settings.cors || request.headerFields[.origin] == nil
        else { return nil }
        return settings.cache.shared(path)
    }

    private func answer(
        _ context: ChannelHandlerContext, _ request: HTTPRequest, _ entry: ReadCache.Entry,
        since start: ContinuousClock.Instant
    ) {
        var (status, headers) = entry.head(ifNoneMatch: request.headerFields[.ifNoneMatch])
        let body = status == .ok ? entry.body : nil
        headers[.contentLength] = String(body?.readableBytes ?? 0)
        headers[.date] = HTTPDate.now()
        headers[.server] = HTTPDate.serverName
        // Logged before the answer leaves, as the router's are: whoever got the answer finds its
        // line in the log. The turn writes its lines, then flushes its answers. (`turn` is set: a
        // request is held only then.)
        guard let turn else { return }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let client =
            settings.trusted.isEmpty
            ? peer
            : ClientAddress.decide(peer: peer, headers: request.headerFields, trusted: settings.trusted)
        var logger = turn.logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        AccessLogMiddleware.record(
            logger, structured: settings.turns.structured, client: client, method: request.method,
            route: entry.shared, status: status, duration: ContinuousClock.now - start)
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        turn.answered(context.channel)
        settings.cache.sentEarly.add(1, ordering: .relaxed)
    }
}

/// The early answers of one event-loop turn: their access lines are kept, and at the turn's end
/// written in as few `write`s as whole lines allow (at most `PIPE_BUF` bytes each, so that no
/// other line lands inside one), then the answers are flushed. A line is so still in the log
/// before its answer leaves, and a busy loop pays one `write` for many lines. Used only on its
/// loop's thread.
final class EarlyTurn: @unchecked Sendable {
    let loop: any EventLoop
    let descriptor: Int32
    /// Writes its lines into this turn (set once the turn exists: its handler writes to it).
    private(set) var logger = Logger(label: "vsh") { _ in SwiftLogNoOpLogHandler() }
    private var lines: [UInt8] = []
    private var channels: [any Channel] = []

    init(loop: any EventLoop, descriptor: Int32, structured: Bool) {
        self.loop = loop
        self.descriptor = descriptor
        let output = LogOutput(descriptor: descriptor, turn: self)
        logger = Logger(label: "vsh") { label in
            structured
                ? JSONLogHandler(label: label, output: output) as any LogHandler
                : TextLogHandler(label: label, output: output)
        }
        logger.logLevel = .info
    }

    /// Keeps a line for the turn's end.
    func keep(_ line: String) { lines.append(contentsOf: line.utf8) }

    /// An answer written to `channel`, to be flushed at the turn's end.
    func answered(_ channel: any Channel) {
        channels.append(channel)
        if channels.count == 1 { loop.execute { self.end() } }
    }

    /// Writes the turn's lines, then flushes its answers.
    func end() {
        let output = LogOutput(descriptor: descriptor)
        lines.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                // Whole lines of at most PIPE_BUF bytes (or one longer line alone).
                var end = min(all.count, start + Int(PIPE_BUF))
                if end < all.count {
                    var cut = end
                    while cut > start && all[cut - 1] != 0x0A { cut -= 1 }
                    if cut > start {
                        end = cut
                    } else {
                        end = (all[start...].firstIndex(of: 0x0A) ?? (all.count - 1)) + 1
                    }
                }
                output.write(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        lines.removeAll(keepingCapacity: true)
        let waiting = channels
        channels.removeAll(keepingCapacity: true)
        for channel in waiting { channel.flush() }
    }
}

/// Each event loop's `EarlyTurn`, made on a connection's first use of its loop.
final class EarlyTurns: Sendable {
    /// `--log-format json`.
    let structured: Bool
    let descriptor: Int32
    private let turns = Mutex<[ObjectIdentifier: EarlyTurn]>([:])

    init(structured: Bool, descriptor: Int32 = STDERR_FILENO) {
        self.structured = structured
        self.descriptor = descriptor
    }

    /// The turn of `loop`.
    func turn(on loop: any EventLoop) -> EarlyTurn {
        turns.withLock { turns in
            if let turn = turns[ObjectIdentifier(loop)] { return turn }
            let turn = EarlyTurn(loop: loop, descriptor: descriptor, structured: structured)
            turns[ObjectIdentifier(loop)] = turn
            return turn
        }
    }
}

/// Hummingbird's HTTP/1.1 channel with `EarlyAnswers` after its connection-state handler.
struct EarlyAnswersChannel<Base: HTTPChannelHandler>: HTTPChannelHandler {
    let base: Base
    let settings: EarlyAnswers.Settings

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(
                EarlyAnswers(settings),
                position: .after(try operations.handler(type: HTTPConnectionStateHandler.self)))
            return value
        }
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate) and the `Server` header's.
enum HTTPDate {
    /// The `Server` header's value, for the router's answers and the early ones.
    static let serverName = "vsh"

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// Made once a second, as the log's stamps are.
    private static let clock = LogClock { text($0) }

    /// Now, as a `Date` header says it.
    static func now() -> String { clock.text(at: time(nil)) }

    /// The time `second` (seconds since 1970) as a `Date` header says it.
    static func text(_ second: time_t) -> String {
        var moment = second
        var parts = tm()
        gmtime_r(&moment, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
