import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import VSHCore

/// Answers to public reads (the hunt feed, hunts, leaderboards, public profiles), kept until the
/// next write. Any successful request that is not a read (a check-in, a review, a registration)
/// empties the cache (`AfterWriteMiddleware`); so does age, after `maxAge`, which bounds how
/// long a write made by another process (`vsh review`, a second server) goes unseen. Every
/// cached answer carries an ETag, and a client that sends it back in If-None-Match gets 304.
final class ReadCache: Sendable {
    struct Entry: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
        var made: ContinuousClock.Instant
    }

    /// The answers by request URI, and the generation: how many times the cache was emptied.
    private let entries = Mutex<(table: [String: Entry], generation: Int)>(([:], 0))
    let maxAge: Duration
    let maxEntries: Int

    init(maxAge: Duration = .seconds(1), maxEntries: Int = 4096) {
        self.maxAge = maxAge
        self.maxEntries = maxEntries
    }

    /// Forgets everything (after a write).
    func invalidate() {
        entries.withLock {
            $0.table.removeAll(keepingCapacity: true)
            $0.generation += 1
        }
    }

    /// The answer to `request`: from the cache while it is fresh, else made by `make` and kept.
    /// `make` returns the body and its content type.
    func answer(
        _ request: Request, variant: String = "",
        make: () async throws -> (body: ByteBuffer, contentType: String)
    ) async throws -> Response {
        // `variant`: what else the answer depends on (the private hunts a viewer may see).
        let key = variant.isEmpty ? request.uri.description : request.uri.description + "\u{0}" + variant
        let now = ContinuousClock.now
        let (found, generation) = entries.withLock { state -> (Entry?, Int) in
            guard let entry = state.table[key] else { return (nil, state.generation) }
            if now - entry.made > maxAge {
                state.table[key] = nil
                return (nil, state.generation)
            }
            return (entry, state.generation)
        }
        let entry: Entry
        if let found {
            entry = found
        } else {
            let made = try await make()
            entry = Entry(
                body: made.body, contentType: made.contentType,
                etag: "\"\(SHA256.hex(made.body.readableBytesView).prefix(32))\"", made: now)
            entries.withLock { state in
                // An answer made while a write happened may be older than the write: not kept.
                guard state.generation == generation else { return }
                if state.table.count >= maxEntries { state.table.removeAll(keepingCapacity: true) }
                state.table[key] = entry
            }
        }
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingWhiteSpace() == entry.etag
            })
        {
            return Response(status: .notModified, headers: [.eTag: entry.etag])
        }
        return Response(
            status: .ok,
            headers: [.contentType: entry.contentType, .eTag: entry.etag, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: entry.body))
    }
}

/// After every successful request that is not a GET or HEAD: empties the read cache, then tells
/// the open pages (`LeagueEvents`) that the league changed.
struct AfterWriteMiddleware<Context: RequestContext>: RouterMiddleware {
    let cache: ReadCache
    let events: LeagueEvents

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let response = try await next(request, context)
        if request.method != .get && request.method != .head && (200..<300).contains(response.status.code) {
            cache.invalidate()
            events.publish()
        }
        return response
    }
}
