public import Hummingbird
public import NIOCore
import VSHCore

/// The request context of every route: Hummingbird's core storage.
public struct VSHRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage
    /// The client's address, for rate limits ("unknown" when the channel has none, as in tests).
    public let clientAddress: String

    /// Completes when the request's connection closes (nil in tests without a channel).
    public let closed: EventLoopFuture<Void>?

    /// A context for a request arriving on a channel.
    public init(source: Source) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        closed = source.channel.closeFuture
    }

    /// Request bodies are read whole only up to this many bytes (JSON); larger ones are refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }
}
