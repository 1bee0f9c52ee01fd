import Foundation
import Synchronization

/// A terminating signal being handled: a handler that cleans up (removing a private folder
/// the process's work is using) marks it first, so that the error the clean-up causes in the
/// work is not reported as a failure of its own: the process ends by the signal.
public enum Termination {
    private static let signal = Atomic<Int32>(0)

    /// The signal being handled, or nil.
    public static var pendingSignal: Int32? {
        let number = signal.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// Marks `number` as being handled (before the clean-up starts).
    public static func begin(_ number: Int32) { signal.store(number, ordering: .releasing) }

    /// Ends the process by the pending signal: its default action, as if never caught.
    public static func end() -> Never {
        let number = pendingSignal ?? SIGTERM
        Foundation.signal(number, SIG_DFL)
        // To the process, not this thread (a dispatch queue's thread blocks signals): a thread
        // that does not block it takes the default action, ending the process.
        kill(getpid(), number)
        for _ in 0..<50 { usleep(100_000) }
        _exit(128 + number)
    }

    /// For work that failed while a signal is being handled: waits for the handler to end the
    /// process (it will, once its clean-up is done). Returns at once when none is pending.
    public static func waitIfEnding() {
        guard pendingSignal != nil else { return }
        while true { pause() }
    }
}
