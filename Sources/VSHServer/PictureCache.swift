import Synchronization

/// Pictures drawn from stored photos (check-in thumbnails, collages), kept by what they show:
/// a photo's content address and size, a collage's plan. They change only with check-ins, so an
/// entry is never stale; drawing one decodes a photo, so a page of review cards or a link preview
/// fetched again costs a lookup, not a decode. Bounded in bytes; the oldest-used entries go first.
final class PictureCache: Sendable {
    private struct State {
        var entries: [String: (bytes: [UInt8], used: UInt64)] = [:]
        var total = 0
        var tick: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most bytes kept.
    let capacity: Int

    init(capacity: Int = 64 << 20) { self.capacity = capacity }

    /// The picture kept under `key`, else the one `make` draws (kept for the next time).
    func picture(_ key: String, make: () async throws -> [UInt8]) async throws -> [UInt8] {
        if let found = state.withLock({ state -> [UInt8]? in
            guard let entry = state.entries[key] else { return nil }
            state.tick += 1
            state.entries[key]?.used = state.tick
            return entry.bytes
        }) {
            return found
        }
        let made = try await make()
        guard made.count <= capacity / 8 else { return made }
        state.withLock { state in
            if let old = state.entries[key] { state.total -= old.bytes.count }
            state.tick += 1
            state.entries[key] = (made, state.tick)
            state.total += made.count
            while state.total > capacity,
                let oldest = state.entries.min(by: { $0.value.used < $1.value.used })
            {
                state.total -= oldest.value.bytes.count
                state.entries[oldest.key] = nil
            }
        }
        return made
    }

    /// Forgets the pictures whose keys `drop` chooses (an erased account's photos).
    func forget(where drop: (String) -> Bool) {
        state.withLock { state in
            for key in state.entries.keys where drop(key) {
                state.total -= state.entries[key]?.bytes.count ?? 0
                state.entries[key] = nil
            }
        }
    }

    /// How many pictures are kept (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}
