public import VSHCore

/// Group commit for a server: check-ins that arrive while the previous group is being written
/// are decided and recorded together, in arrival order, in one transaction (one durable commit),
/// and each caller is answered once the commit that holds its check-in is done. SQLite allows
/// one writer; without this, every concurrent request would pay its own fsync in turn.
public actor GroupCommit {
    /// Where check-ins are decided and recorded.
    public let store: any LeagueStore
    /// The rules.
    public let verifier: Verifier
    /// The most check-ins one transaction takes.
    public let maxGroup: Int
    private var waiting: [(request: CheckInRequest, reply: CheckedContinuation<CheckInOutcome, any Error>)] =
        []
    private var writing = false
    /// Groups written and check-ins in them, for tests and diagnostics.
    public private(set) var groups = 0
    /// Requests answered, for tests and diagnostics.
    public private(set) var requests = 0

    /// A group commit over `store`, deciding with `verifier`, at most `maxGroup` a transaction.
    public init(store: any LeagueStore, verifier: Verifier = Verifier(), maxGroup: Int = 256) {
        self.store = store
        self.verifier = verifier
        self.maxGroup = max(1, maxGroup)
    }

    /// Queues a check-in and returns once the transaction that holds it is committed.
    /// - Throws: what the store threw for its group (nothing of the request was recorded then).
    public func submit(_ request: CheckInRequest) async throws -> CheckInOutcome {
        try await withCheckedThrowingContinuation { reply in
            waiting.append((request, reply))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let group = Array(waiting.prefix(maxGroup))
            waiting.removeFirst(group.count)
            let verifier = self.verifier
            let decide: CheckInDecider = { verifier.evaluate($0, facts: $1) }
            do {
                let outcomes = try await store.recordGroup(group.map(\.request), decide: decide)
                for (entry, outcome) in zip(group, outcomes) { entry.reply.resume(returning: outcome) }
            } catch  where group.count > 1 && (error as? any ExitStatusProviding)?.exitStatus != .busy {
                // One bad request must not fail the others: record them one by one. (Not when the
                // database is busy: each alone would wait out the busy timeout again, in turn.)
                for entry in group {
                    do {
                        let outcome = try await store.recordGroup([entry.request], decide: decide)
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
        }
        writing = false
    }
}
