public import Hummingbird
import VSHCore

/// The request context of every route: Hummingbird's core storage.
public struct VSHRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, allocator).
    public var coreContext: CoreRequestContextStorage

    /// A context for a request arriving on a channel.
    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// Request bodies are read whole only up to this many bytes (JSON); larger ones are refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }
}
