import Foundation
import Logging
import ServiceLifecycle
import VSHCore

/// Instances sharing a database tell each other what their pages must hear (`LeagueSignals`:
/// PostgreSQL's LISTEN and NOTIFY): this instance's writes, announcements and check-ins go out as
/// they happen (a burst in one notification), and what the others send reaches this instance's
/// open pages, its read cache emptied first. A failed channel is opened again after a second,
/// then after longer waits (up to 30 s) while it keeps failing, so an outage logs a line a while.
struct LeagueSignalService: Service {
    let signals: any LeagueSignals
    let events: LeagueEvents
    let cache: ReadCache
    let logger: Logger

    func run() async throws {
        guard let wakeUps = events.wakeUps else { return }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in wakeUps {
                        let batch = events.takeOutgoing()
                        guard !batch.isEmpty else { continue }
                        do {
                            try await signals.send(batch)
                        } catch {
                            logger.warning("cannot tell the other instances: \(error)")
                        }
                    }
                }
                group.addTask {
                    var wait = 1
                    while !Task.isCancelled {
                        let started = ContinuousClock.now
                        do {
                            try await signals.listen { received in
                                cache.invalidate()
                                events.deliver(received)
                            }
                        } catch {
                            if Task.isCancelled { break }
                            logger.warning(
                                "not hearing the other instances: \(error); listening again in \(wait) s")
                        }
                        // A channel that held a while starts the waits again from a second.
                        if ContinuousClock.now - started > .seconds(30) { wait = 1 }
                        try? await Task.sleep(for: .seconds(wait))
                        wait = min(wait * 2, 30)
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
