public import Hummingbird
public import NIOCore
import VSHCore

/// The request context of every route: Hummingbird's core storage.
public struct VSHRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage
    /// The client's address, for rate limits and the access log: the peer's, or the one a trusted
    /// proxy names (`--trust-proxy`, `ClientAddressMiddleware`); "unknown" when the channel has none.
    public internal(set) var clientAddress: String
    /// The connection's own peer address (a proxy's, behind one).
    public let peerAddress: String

    /// Completes when the request's connection closes (nil in tests without a channel).
    public let closed: EventLoopFuture<Void>?
    /// The request's connection, for closing it after a refused upload (nil in tests without one).
    let channel: (any Channel)?

    /// A context for a request arriving on a channel.
    public init(source: Source) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = peerAddress
        closed = source.channel.closeFuture
        channel = source.channel
    }

    /// Request bodies are read whole only up to this many bytes (JSON); larger ones are refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }
}
