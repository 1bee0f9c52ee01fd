import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections the service holds, in all and from one address. A connection over either
/// cap is closed as it opens, so one client cannot take every file descriptor the process has
/// (the caps are set below the open-file limit, `ConnectionBudget.fromFileLimit`).
final class ConnectionCounts: Sendable {
    private let state = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))
    /// Connections held at most, in all.
    let maxTotal: Int
    /// Connections held at most from one address.
    let maxPerAddress: Int

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Counts a new connection from `address`, or says it is one too many.
    func open(_ address: String) -> Bool {
        state.withLock { state in
            let held = state.byAddress[address, default: 0]
            guard state.total < maxTotal, held < maxPerAddress else { return false }
            state.total += 1
            state.byAddress[address] = held + 1
            return true
        }
    }

    /// Forgets a connection `open` counted.
    func close(_ address: String) {
        state.withLock { state in
            state.total -= 1
            let held = state.byAddress[address, default: 1] - 1
            state.byAddress[address] = held > 0 ? held : nil
        }
    }
}

/// One connection's guard, in the pipeline after the HTTP decoder: counts the connection against
/// the caps, and closes it when a request's body arrives slower than `minBytesPerSecond` once
/// `graceSeconds` have passed since its head (Apache's mod_reqtimeout rule: the deadline moves
/// a second later for every `minBytesPerSecond` bytes received). A head that never completes,
/// a body that stops, and a connection idle between requests are Hummingbird's idle timeout's.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let counts: ConnectionCounts
    let graceSeconds: Int64
    let minBytesPerSecond: Int64
    private var address: String?
    private var bodyStarted: NIODeadline?
    private var bodyBytes: Int64 = 0
    private var check: Scheduled<Void>?

    init(counts: ConnectionCounts, graceSeconds: Int, minBytesPerSecond: Int) {
        self.counts = counts
        self.graceSeconds = Int64(graceSeconds)
        self.minBytesPerSecond = Int64(max(1, minBytesPerSecond))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard address == nil else { return }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if counts.open(peer) {
            address = peer
        } else {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func release() {
        check?.cancel()
        check = nil
        if let address {
            counts.close(address)
            self.address = nil
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bodyStarted = context.eventLoop.now
            bodyBytes = 0
        case .body(let chunk):
            bodyBytes += Int64(chunk.readableBytes)
        case .end:
            bodyStarted = nil
            check?.cancel()
            check = nil
        }
        context.fireChannelRead(data)
    }

    /// The end of what one read of the socket brought: a request still unfinished gets its check,
    /// due `graceSeconds` after its head. (A request whose head and end came in one read, nearly
    /// every GET, never needs one: the timer was a twentieth of a cached read's cost.)
    func channelReadComplete(context: ChannelHandlerContext) {
        if let started = bodyStarted, check == nil {
            schedule(context, at: started + .seconds(graceSeconds))
        }
        context.fireChannelReadComplete()
    }

    /// The deadline a body in progress must beat: the grace, plus a second a `minBytesPerSecond`.
    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        check?.cancel()
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        check = loop.scheduleTask(deadline: deadline) { [self] in
            check = nil
            guard let started = bodyStarted else { return }
            let due =
                started + .seconds(graceSeconds) + .nanoseconds(bodyBytes * 1_000_000_000 / minBytesPerSecond)
            if context.eventLoop.now >= due {
                context.close(promise: nil)
            } else {
                schedule(context, at: due)
            }
        }
    }
}
