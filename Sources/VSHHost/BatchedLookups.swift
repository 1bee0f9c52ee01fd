import Synchronization

/// Lookups gathered into batches, for a server under many requests: a lookup that arrives while
/// another batch is in flight waits for it to finish and goes with the next one (one statement
/// for the batch's keys, as check-ins go in groups). Every batch starts after each of its lookups
/// arrived, so none reads a row older than its request: a session deleted (a sign-out) before a
/// request came is never found for it, a retry key kept before it is. A batch that fails fails the
/// lookups that queued behind it as well, so none waits longer than one lookup's bound. On
/// PostgreSQL each of these lookups was a round trip a request, and round trips, not the lookups,
/// were their cost. Used there for sessions, retry keys and the definitions' generation; on both
/// stores for the sessions' last-use stamps, a durable write each, which a crowd's first requests
/// would otherwise make one at a time.
public final class BatchedLookups<Found: Sendable>: Sendable {
    private struct Waiter {
        var key: String
        var reply: CheckedContinuation<Found?, any Error>
    }

    private let state = Mutex<(waiting: [Waiter], running: Bool)>(([], false))

    public init() {}

    /// Lookups waiting for the next batch (for tests).
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// What the next batch finds for `key` (nil: nothing); `run` looks up a batch of keys (each
    /// once) and answers by key (the caller that starts a batch lends its `run`: every caller
    /// passes the same lookup).
    /// - Throws: what the batch's lookup threw.
    public func find(_ key: String, run: @escaping @Sendable ([String]) async throws -> [String: Found])
        async throws -> Found?
    {
        try await withCheckedThrowingContinuation { reply in
            let start = state.withLock { state in
                state.waiting.append(Waiter(key: key, reply: reply))
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if start { Task { await self.drain(run) } }
        }
    }

    /// Runs batches until nobody waits.
    private func drain(_ run: @Sendable ([String]) async throws -> [String: Found]) async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.running = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                var keys: [String] = []
                var seen = Set<String>()
                for waiter in batch where seen.insert(waiter.key).inserted { keys.append(waiter.key) }
                let found = try await run(keys)
                for waiter in batch { waiter.reply.resume(returning: found[waiter.key]) }
            } catch {
                // The lookups that came while it failed get its error too (a database away or
                // busy past the bound): each waits at most one bound, as a lookup of its own would.
                let late = state.withLock { state in
                    let late = state.waiting
                    state.waiting = []
                    state.running = false
                    return late
                }
                for waiter in batch + late { waiter.reply.resume(throwing: error) }
                return
            }
        }
    }
}

/// A session's last-use stamp as a `BatchedLookups` key, `<token hash> <stamp>`: each waiting
/// request's own time goes with its token into the batch that writes them (a token hash is hex).
public struct LastUseStamp: Sendable, Equatable {
    /// The session's token hash.
    public let tokenHash: String
    /// The stamp, RFC 3339.
    public let time: String

    /// The stamp `time` (RFC 3339) for the session `tokenHash`.
    public init(tokenHash: String, time: String) {
        self.tokenHash = tokenHash
        self.time = time
    }

    /// This stamp as a key.
    public var key: String { tokenHash + " " + time }

    /// The stamp a key names; nil for anything else.
    public init?(_ key: String) {
        let parts = key.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        tokenHash = String(parts[0])
        time = String(parts[1])
    }
}
