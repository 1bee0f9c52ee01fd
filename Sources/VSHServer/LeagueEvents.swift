import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import VSHCore

/// Tells open pages that the league changed: every successful write (a check-in, a review, a new
/// player) publishes a change, and `GET /v1/events` streams them as server-sent events. A page
/// that receives one reads what it shows again (the leaderboard moves within a second of a
/// check-in elsewhere). Events carry no data about anyone: only a counter. Events are sent at
/// once, or, within `spacing` (a quarter of a second) of the last send, together with what else
/// comes until then: one `change` for every change in between, and each check-in's and
/// announcement's event. An organiser's
/// announcement is `event: announcement` with its number only: the page reads it from
/// `GET /v1/announcements`, which leaves out those of private hunts the viewer may not see.
/// With instances sharing a database (`LeagueSignalService`), what happens on one is told to the
/// others, whose pages hear it as their own.
final class LeagueEvents: Sendable {
    /// What a stream is sent: events, or a keep-alive comment.
    enum Event: Sendable {
        /// One or more events, as the stream's text (the same bytes for every listener).
        case events(ByteBuffer)
        /// A keep-alive comment.
        case ping

        var bytes: ByteBuffer {
            switch self {
            case .events(let bytes): return bytes
            case .ping: return ByteBuffer(string: ": ping\n\n")
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
        /// Events not sent yet (announcements, check-ins), and whether the league changed since
        /// the last send (one `change` event tells of every change in between).
        var waiting = ""
        var changed = false
        /// When the listeners were last sent events, and whether a send is due.
        var lastSent: ContinuousClock.Instant?
        var sendDue = false
    }
    private let state = Mutex(State())
    /// The least time between two sends to the listeners. What happens in between waits and goes
    /// in one write: at an event's start the league changes hundreds of times a second, and
    /// sending every change to every open page made each check-in cost a write per page.
    let spacing: Duration
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
        relays: Bool = false, spacing: Duration = .milliseconds(250)
    ) {
        self.spacing = spacing
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

    /// The league changed: every listener is told.
    func publish() {
        send(change: true)
        relay(.change)
    }

    /// An announcement to every listener.
    func announce(_ id: Int64) {
        send("event: announcement\ndata: \(id)\n\n")
        relay(.announcement(id))
    }

    /// A new check-in to every listener (its id only: the moderators' feed reads it).
    func checkedIn(_ id: Int64) {
        send("event: checkin\ndata: \(id)\n\n")
        relay(.checkIn(id))
    }

    /// What another instance told: to this instance's listeners, not sent on again.
    func deliver(_ signals: [LeagueSignal]) {
        for signal in signals {
            switch signal {
            case .change: send(change: true)
            case .announcement(let id): send("event: announcement\ndata: \(id)\n\n")
            case .checkIn(let id): send("event: checkin\ndata: \(id)\n\n")
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

    /// Sends `text` (and a `change` event if `change`) to every listener: at once if nothing was
    /// sent in the last `spacing`, else with what else comes, when `spacing` has passed.
    private func send(_ text: String = "", change: Bool = false) {
        let now = ContinuousClock.now
        let (batch, due) = state.withLock { state -> (Batch?, ContinuousClock.Instant?) in
            if change {
                state.generation += 1
                state.changed = true
            }
            // Nobody listens: nothing to keep.
            if state.listeners.isEmpty {
                state.waiting = ""
                state.changed = false
                return (nil, nil)
            }
            state.waiting += text
            if state.sendDue { return (nil, nil) }
            if let last = state.lastSent, now - last < spacing {
                state.sendDue = true
                return (nil, last + spacing)
            }
            return (Self.take(&state, at: now), nil)
        }
        if let batch { batch.deliver() }
        if let due {
            Task {
                try? await Task.sleep(until: due, clock: .continuous)
                self.state.withLock { state -> Batch? in
                    state.sendDue = false
                    return Self.take(&state, at: .now)
                }?.deliver()
            }
        }
    }

    /// The events waiting and the listeners to send them to.
    private struct Batch {
        let bytes: ByteBuffer
        let listeners: [AsyncStream<Event>.Continuation]

        func deliver() {
            for listener in listeners { listener.yield(.events(bytes)) }
        }
    }

    /// Takes what waits (nil when nothing does), as sent at `now`.
    private static func take(_ state: inout State, at now: ContinuousClock.Instant) -> Batch? {
        guard state.changed || !state.waiting.isEmpty else { return nil }
        var text = state.waiting
        if state.changed { text += "event: change\ndata: \(state.generation)\n\n" }
        state.waiting = ""
        state.changed = false
        state.lastSent = now
        return Batch(bytes: ByteBuffer(string: text), listeners: Array(state.listeners.values))
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
                            try await writer.write(event.bytes)
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
