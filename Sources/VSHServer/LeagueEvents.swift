import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import VSHCore

/// Tells open pages that the league changed: every successful write (a check-in, a review, a new
/// player) publishes one event, and `GET /v1/events` streams them as server-sent events. A page
/// that receives one reads what it shows again (the leaderboard moves within a second of a
/// check-in elsewhere). Events carry no data about anyone: only a counter. An organiser's
/// announcement is `event: announcement` with its number only: the page reads it from
/// `GET /v1/announcements`, which leaves out those of private hunts the viewer may not see.
/// With instances sharing a database (`LeagueSignalService`), what happens on one is told to the
/// others, whose pages hear it as their own.
final class LeagueEvents: Sendable {
    /// One event of the stream.
    enum Event: Sendable {
        /// The league changed (the generation).
        case change(Int)
        /// An announcement was made (its id).
        case announcement(Int64)
        /// A check-in was recorded on this instance (its id).
        case checkIn(Int64)
        /// A keep-alive comment.
        case ping

        var text: String {
            switch self {
            case .change(let generation): return "event: change\ndata: \(generation)\n\n"
            case .announcement(let id): return "event: announcement\ndata: \(id)\n\n"
            case .checkIn(let id): return "event: checkin\ndata: \(id)\n\n"
            case .ping: return ": ping\n\n"
            }
        }
    }

    private struct State {
        var next = 0
        var generation = 0
        var listeners: [Int: AsyncStream<Event>.Continuation] = [:]
        var byAddress: [String: Int] = [:]
        /// What the other instances are to be told (when some listen), oldest first.
        var outgoing: [LeagueSignal] = []
    }
    private let state = Mutex(State())
    /// The most pages listening at once; more are answered 503 (each holds a connection).
    let maxListeners: Int
    /// The most pages listening from one address (a venue's players share one; an attacker
    /// cannot take every slot).
    let maxListenersPerAddress: Int
    /// Seconds between keep-alive comments, so proxies and phones keep the connection open.
    let heartbeatSeconds: Int

    /// Wakes the sender of `outgoing`; nil when no other instance is told.
    private let wake: AsyncStream<Void>.Continuation?
    /// The sender's wake-ups (one pending at most).
    let wakeUps: AsyncStream<Void>?
    /// The most signals kept for the other instances while the channel is slow (the oldest go).
    static let maxOutgoing = 10_000

    init(
        maxListeners: Int = 10_000, maxListenersPerAddress: Int = 2_500, heartbeatSeconds: Int = 20,
        relays: Bool = false
    ) {
        self.maxListeners = maxListeners
        self.maxListenersPerAddress = maxListenersPerAddress
        self.heartbeatSeconds = heartbeatSeconds
        if relays {
            let (stream, continuation) = AsyncStream.makeStream(
                of: Void.self, bufferingPolicy: .bufferingNewest(1))
            (wakeUps, wake) = (stream, continuation)
        } else {
            (wakeUps, wake) = (nil, nil)
        }
    }

    /// One event to every listener.
    func publish() {
        change()
        relay(.change)
    }

    /// An announcement to every listener.
    func announce(_ id: Int64) {
        yield(.announcement(id))
        relay(.announcement(id))
    }

    /// A new check-in to every listener (its id only: the moderators' feed reads it).
    func checkedIn(_ id: Int64) {
        yield(.checkIn(id))
        relay(.checkIn(id))
    }

    /// What another instance told: to this instance's listeners, not sent on again.
    func deliver(_ signals: [LeagueSignal]) {
        for signal in signals {
            switch signal {
            case .change: change()
            case .announcement(let id): yield(.announcement(id))
            case .checkIn(let id): yield(.checkIn(id))
            }
        }
    }

    /// The signals waiting for the other instances (taken: the sender sends them), a run of
    /// changes told once.
    func takeOutgoing() -> [LeagueSignal] {
        let taken = state.withLock { state -> [LeagueSignal] in
            defer { state.outgoing.removeAll(keepingCapacity: true) }
            return state.outgoing
        }
        var seenChange = false
        return taken.filter { signal in
            guard signal == .change else { return true }
            defer { seenChange = true }
            return !seenChange
        }
    }

    private func change() {
        let (generation, listeners) = state.withLock { state in
            state.generation += 1
            return (state.generation, Array(state.listeners.values))
        }
        for listener in listeners { listener.yield(.change(generation)) }
    }

    private func yield(_ event: Event) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(event) }
    }

    private func relay(_ signal: LeagueSignal) {
        guard let wake else { return }
        state.withLock { state in
            state.outgoing.append(signal)
            if state.outgoing.count > Self.maxOutgoing {
                state.outgoing.removeFirst(state.outgoing.count - Self.maxOutgoing)
            }
        }
        wake.yield()
    }

    /// The events from now on (with heartbeats) and a way to end them (which frees the slot),
    /// or nil when too many pages listen, in all or from `address`.
    func subscribe(from address: String) -> (events: AsyncStream<Event>, end: @Sendable () -> Void)? {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(4))
        let id: Int? = state.withLock { state in
            let held = state.byAddress[address, default: 0]
            guard state.listeners.count < maxListeners, held < maxListenersPerAddress else { return nil }
            state.byAddress[address] = held + 1
            state.next += 1
            state.listeners[state.next] = continuation
            ServiceMetrics.streams(state.listeners.count)
            return state.next
        }
        guard let id else { return nil }
        let seconds = heartbeatSeconds
        let beat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(seconds))
                continuation.yield(.ping)
            }
        }
        continuation.onTermination = { [weak self] _ in
            beat.cancel()
            self?.state.withLock { state in
                guard state.listeners.removeValue(forKey: id) != nil else { return }
                ServiceMetrics.streams(state.listeners.count)
                let held = state.byAddress[address, default: 1] - 1
                state.byAddress[address] = held > 0 ? held : nil
            }
        }
        return (stream, { continuation.finish() })
    }

    static let endpoint = Endpoint(.get, "/v1/events")

    func add(to router: Router<VSHRequestContext>) {
        router.on(Self.endpoint) { [self] request, context in
            // An endless answer only for those who asked for one (EventSource always does): a
            // script or crawler that did not is told so at once rather than left waiting.
            guard (request.headers[.accept] ?? "").lowercased().contains("text/event-stream") else {
                throw Problem(
                    .notAcceptable, "Not acceptable",
                    "this is an event stream: send Accept: text/event-stream")
            }
            guard let (stream, end) = subscribe(from: context.clientAddress) else {
                throw Problem(
                    .serviceUnavailable, "Busy", "too many pages are listening; try again soon",
                    retryAfterSeconds: 5)
            }
            // The slot is free the moment the page goes, not at the next heartbeat's failed write.
            context.closed?.whenComplete { _ in end() }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream", .cacheControl: "no-store",
                    HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 2000\n: listening\n\n"))
                    // A stopping server ends the stream (the page reconnects elsewhere or later)
                    // rather than waiting out the shutdown bound.
                    try await withGracefulShutdownHandler {
                        for await event in stream {
                            try await writer.write(ByteBuffer(string: event.text))
                        }
                    } onGracefulShutdown: {
                        end()
                    }
                    try await writer.finish(nil)
                })
        }
    }
}

/// A path segment made of a player's name (`Ann%20O%27Neil`): everything but the unreserved path
/// characters percent-encoded, quotes and angle brackets included, so it is safe in an attribute too.
enum PathSegment {
    static let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;'\"<>"))

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
