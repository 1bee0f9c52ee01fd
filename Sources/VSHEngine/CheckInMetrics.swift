import Metrics
import Synchronization
import VSHCore

/// Whether the engine reports metrics: off until a process that bootstraps a metrics system
/// says so, so that commands and tests do not make (no-op) metric objects on every check-in.
public enum EngineMetrics {
    static let enabled = Atomic<Bool>(false)

    /// Turns the engine's metrics on (after `MetricsSystem.bootstrap`).
    public static func enable() { enabled.store(true, ordering: .relaxed) }
}

/// What group commit reports through swift-metrics (nothing, unless a process bootstraps a metrics
/// system: `vsh serve --metrics-port` does, with Prometheus): check-ins by verdict, the rules that
/// refused or doubted them, groups' sizes, how long check-ins waited for a group and how long the
/// database took to record one.
enum CheckInMetrics {
    static let groupSize = Recorder(label: "vsh_group_commit_size", aggregate: true)
    static let waited = Metrics.Timer(label: "vsh_group_commit_wait_seconds")
    static let database = Metrics.Timer(
        label: "vsh_database_seconds", dimensions: [("work", "check-in group")])

    /// A group begins: its size, and how long each of its check-ins waited for it.
    static func groupStarted(size: Int, waits: [Duration]) {
        guard EngineMetrics.enabled.load(ordering: .relaxed) else { return }
        groupSize.record(size)
        for wait in waits { waited.record(duration: wait) }
    }

    /// A group ends after `duration` in the database.
    static func groupEnded(after duration: Duration) {
        guard EngineMetrics.enabled.load(ordering: .relaxed) else { return }
        database.record(duration: duration)
    }

    /// Counts a recorded check-in's verdict and every rule that failed or asked for review.
    static func count(_ outcome: CheckInOutcome) {
        guard EngineMetrics.enabled.load(ordering: .relaxed), case .recorded(let recorded, _) = outcome else {
            return
        }
        Counter(label: "vsh_checkins_total", dimensions: [("verdict", recorded.decision.verdict.rawValue)])
            .increment()
        for result in recorded.decision.rules
        where result.outcome == .failed || result.outcome == .needsReview {
            Counter(
                label: "vsh_rule_results_total",
                dimensions: [("rule", result.rule.rawValue), ("outcome", result.outcome.rawValue)]
            ).increment()
        }
    }
}

extension Metrics.Timer {
    /// Records a `Duration` (the Timer API takes nanoseconds).
    func record(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
