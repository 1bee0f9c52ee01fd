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
///
/// Requests for an answer that is being made wait for it rather than make it again: at an event's
/// start every check-in empties the cache, and every open leaderboard page reads the board again
/// at once (it follows `GET /v1/events`), so dozens of requests would otherwise build the same
/// board side by side, each reading the database and hashing the answer. Only a request that
/// arrived after the cache was last emptied joins an answer being made, so none is answered from
/// before a write it came after.
final class ReadCache: Sendable {
    struct Entry: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
        var made: ContinuousClock.Instant
        /// The route's template when the answer is the same for whoever asks (no access check, no
        /// viewer): such an answer may be sent before the request reaches the router
        /// (`EarlyAnswers`). Nil for the others.
        var shared: String?
    }

    /// An answer being made: for one request URI (and variant) in one generation of the cache.
    struct FlightKey: Hashable {
        var key: String
        var generation: Int
    }

    /// What a request that missed does: make the answer itself, or take the one it waited for
    /// (`nil` when that one failed: then it makes its own).
    private enum Miss {
        case make(FlightKey)
        case waited(Entry?)
    }

    private struct State {
        /// The answers by request URI (and variant).
        var table: [String: Entry] = [:]
        /// How many times the cache was emptied.
        var generation = 0
        /// The requests waiting for an answer being made, by what is being made.
        var flights: [FlightKey: [UnsafeContinuation<Miss, Never>]] = [:]
    }

    private let state = Mutex(State())
    let maxAge: Duration
    let maxEntries: Int

    init(maxAge: Duration = .seconds(1), maxEntries: Int = 4096) {
        self.maxAge = maxAge
        self.maxEntries = maxEntries
    }

    /// Forgets everything (after a write).
    func invalidate() {
        state.withLock {
            $0.table.removeAll(keepingCapacity: true)
            $0.generation += 1
        }
    }

    /// How many requests wait for answers being made (for the tests).
    var waiting: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.count } } }

    /// The answer to `request`: from the cache while it is fresh, else made by `make` and kept.
    /// `make` returns the body and its content type. `shared`: the route's template, when the answer
    /// is the same for everyone who asks and the route checked nothing about the request before it.
    func answer(
        _ request: Request, variant: String = "", shared: String? = nil,
        make: () async throws -> (body: ByteBuffer, contentType: String)
    ) async throws -> Response {
        // `variant`: what else the answer depends on (the private hunts a viewer may see).
        let key = variant.isEmpty ? request.uri.description : request.uri.description + "\u{0}" + variant
        let entry = try await self.entry(key, shared: variant.isEmpty ? shared : nil, make: make)
        let (status, headers) = entry.head(ifNoneMatch: request.headers[.ifNoneMatch])
        return Response(
            status: status, headers: headers,
            body: status == .ok ? ResponseBody(byteBuffer: entry.body) : ResponseBody())
    }

    /// A fresh answer that is the same for everyone, for the request URI `key` (as sent), or nil;
    /// never makes one.
    func shared(_ key: String) -> Entry? {
        let now = ContinuousClock.now
        return state.withLock { state -> Entry? in
            guard let entry = state.table[key], entry.shared != nil, now - entry.made <= maxAge else {
                return nil
            }
            return entry
        }
    }

    /// How many of its answers `EarlyAnswers` sent (for the tests).
    let sentEarly = Atomic<Int>(0)

    /// The entry for `key`: kept, waited for, or made.
    func entry(
        _ key: String, shared: String? = nil, make: () async throws -> (body: ByteBuffer, contentType: String)
    ) async throws -> Entry {
        let now = ContinuousClock.now
        let found = state.withLock { state -> Entry? in
            guard let entry = state.table[key] else { return nil }
            if now - entry.made > maxAge {
                state.table[key] = nil
                return nil
            }
            return entry
        }
        if let found { return found }
        // Join the answer being made in this generation, or start making it.
        let miss = await withUnsafeContinuation { (waiting: UnsafeContinuation<Miss, Never>) in
            let first = state.withLock { state -> FlightKey? in
                let flight = FlightKey(key: key, generation: state.generation)
                if state.flights[flight] != nil {
                    state.flights[flight]!.append(waiting)
                    return nil
                }
                state.flights[flight] = []
                return flight
            }
            if let first { waiting.resume(returning: .make(first)) }
        }
        switch miss {
        case .waited(let entry?):
            return entry
        case .waited(nil):
            return try await build(
                key, generation: state.withLock { $0.generation }, shared: shared, make: make)
        case .make(let flight):
            do {
                let entry = try await build(key, generation: flight.generation, shared: shared, make: make)
                land(flight, .waited(entry))
                return entry
            } catch {
                land(flight, .waited(nil))
                throw error
            }
        }
    }

    /// Makes the entry for `key` and keeps it, unless the cache was emptied since `generation`
    /// (an answer made while a write happened may be older than the write). Its age counts from
    /// before the database was read.
    private func build(
        _ key: String, generation: Int, shared: String?,
        make: () async throws -> (body: ByteBuffer, contentType: String)
    ) async throws -> Entry {
        let started = ContinuousClock.now
        let made = try await make()
        let entry = Entry(
            body: made.body, contentType: made.contentType,
            etag: "\"\(SHA256.hex(made.body.readableBytesView).prefix(32))\"", made: started, shared: shared)
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.table.count >= maxEntries { state.table.removeAll(keepingCapacity: true) }
            state.table[key] = entry
        }
        return entry
    }

    /// Hands what `flight` made (or `nil`: it failed) to the requests that waited for it.
    private func land(_ flight: FlightKey, _ outcome: Miss) {
        let waiting = state.withLock { $0.flights.removeValue(forKey: flight) } ?? []
        for request in waiting { request.resume(returning: outcome) }
    }
}

extension ReadCache.Entry {
    /// The status and headers of the answer to a request that sent `ifNoneMatch`: 304 when it names
    /// this answer's ETag, else 200 with the body (whose length the writer adds). The same for the
    /// router's answers and the early ones (`EarlyAnswers`).
    func head(ifNoneMatch match: String?) -> (HTTPResponse.Status, HTTPFields) {
        if let match, match.split(separator: ",").contains(where: { $0.trimmingWhiteSpace() == etag }) {
            return (.notModified, [.eTag: etag])
        }
        return (.ok, [.contentType: contentType, .eTag: etag, .cacheControl: "no-cache"])
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
