public import VSHCore

/// Group commit for a server: check-ins that arrive while earlier groups are being written are
/// decided and recorded together, in arrival order, in one transaction (one durable commit), and
/// each caller is answered once the commit that holds its check-in is done. SQLite allows one
/// writer; without this, every concurrent request would pay its own fsync in turn. A store that
/// takes more writers at once (`concurrentGroups`, PostgreSQL) gets that many groups in flight;
/// a player's check-ins are never in two groups in flight, so they are still decided in the order
/// they arrived.
public actor GroupCommit {
    private typealias Entry = (
        request: CheckInRequest, reply: CheckedContinuation<CheckInOutcome, any Error>,
        queued: ContinuousClock.Instant
    )

    /// Where check-ins are decided and recorded.
    public let store: any LeagueStore
    /// The rules.
    public let verifier: Verifier
    /// The most check-ins one transaction takes.
    public let maxGroup: Int
    /// The most transactions in flight at once.
    public let writers: Int
    private var waiting: [Entry] = []
    private var inFlight = 0
    /// Players with a check-in in a group being written, and how many.
    private var busy: [PlayerID: Int] = [:]
    /// Groups written and check-ins in them, for tests and diagnostics.
    public private(set) var groups = 0
    /// Requests answered, for tests and diagnostics.
    public private(set) var requests = 0

    /// The priority groups are decided and written at (`store.groupPriority`), or nil for the
    /// priority of the request that started the group. The writer is the one serial stage of a
    /// server: each group waits for the one before it, and every request waits for its group. On
    /// SQLite, at the requests' own priority, a group's task and its return from the database's
    /// queue waited in Swift's queue behind the requests' tasks (reading, authenticating and
    /// answering them), and the writer stood idle meanwhile; at a higher priority they go to a queue
    /// of their own, taken first (docs/speed.md, "Speed round 3", fifth session).
    public nonisolated let priority: TaskPriority?

    /// A group commit over `store`, deciding with `verifier`, at most `maxGroup` a transaction and
    /// `store.concurrentGroups` transactions at once.
    public init(store: any LeagueStore, verifier: Verifier = Verifier(), maxGroup: Int = 256) {
        self.store = store
        self.verifier = verifier
        self.maxGroup = max(1, maxGroup)
        self.writers = max(1, store.concurrentGroups)
        self.priority = store.groupPriority
    }

    /// Queues a check-in and returns once the transaction that holds it is committed.
    /// - Throws: what the store threw for its group (nothing of the request was recorded then).
    public func submit(_ request: CheckInRequest) async throws -> CheckInOutcome {
        try await withCheckedThrowingContinuation { reply in
            waiting.append((request, reply, ContinuousClock.now))
            startGroups()
        }
    }

    /// Starts groups while a writer is free and something is waiting that may go.
    private func startGroups() {
        while inFlight < writers, let group = nextGroup() {
            inFlight += 1
            for entry in group { busy[entry.request.submission.player, default: 0] += 1 }
            Task(priority: priority) { await self.write(group) }
        }
    }

    /// The next group in arrival order (`GroupCommit.select`), taken out of `waiting`.
    private func nextGroup() -> [Entry]? {
        let taken = Self.select(
            waiting.map(\.request.submission.player), busy: Set(busy.keys), maxGroup: maxGroup)
        guard !taken.isEmpty else { return nil }
        let chosen = Set(taken)
        let group = taken.map { waiting[$0] }
        waiting = waiting.indices.filter { !chosen.contains($0) }.map { waiting[$0] }
        return group
    }

    /// Which of the waiting check-ins (their players, in arrival order) make the next group: in
    /// order, at most `maxGroup`, none of a player with a check-in in a group in flight (`busy`),
    /// and none after a check-in of the same player that was held back, so that each player's
    /// check-ins are decided in the order they arrived.
    public static func select(_ waiting: [PlayerID], busy: Set<PlayerID>, maxGroup: Int) -> [Int] {
        var taken: [Int] = []
        var heldBack = busy
        for (i, player) in waiting.enumerated() {
            if taken.count < maxGroup, !heldBack.contains(player) {
                taken.append(i)
            } else {
                heldBack.insert(player)
            }
        }
        return taken
    }

    private func write(_ group: [Entry]) async {
        let verifier = self.verifier
        let decide: CheckInDecider = { verifier.evaluate($0, facts: $1) }
        let started = ContinuousClock.now
        CheckInMetrics.groupStarted(size: group.count, waits: group.map { started - $0.queued })
        defer { CheckInMetrics.groupEnded(after: ContinuousClock.now - started) }
        do {
            let outcomes = try await store.recordGroup(group.map(\.request), decide: decide)
            for (entry, outcome) in zip(group, outcomes) {
                CheckInMetrics.count(outcome)
                entry.reply.resume(returning: outcome)
            }
        } catch  where group.count > 1 && (error as? any ClassifiedError)?.errorKind != .busy {
            // One bad request must not fail the others: record them one by one. (Not when the
            // database is busy: each alone would wait out the busy timeout again, in turn.)
            for entry in group {
                do {
                    let outcome = try await store.recordGroup([entry.request], decide: decide)
                    CheckInMetrics.count(outcome[0])
                    entry.reply.resume(returning: outcome[0])
                } catch {
                    entry.reply.resume(throwing: error)
                }
            }
        } catch {
            for entry in group { entry.reply.resume(throwing: error) }
        }
        groups += 1
        requests += group.count
        for entry in group {
            let player = entry.request.submission.player
            busy[player] = busy[player]! > 1 ? busy[player]! - 1 : nil
        }
        inFlight -= 1
        startGroups()
    }
}
