import Dispatch
import Foundation

/// Work over many items on every core, results in input order.
public enum ParallelMap {
    /// Applies `transform` to every item, `ProcessInfo.activeProcessorCount` at a time, in chunks.
    public static func map<T: Sendable, R: Sendable>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        guard items.count > 1 else { return items.map(transform) }
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = max(1, min(256, (items.count + workers * 8 - 1) / (workers * 8)))
        let chunks = (items.count + chunk - 1) / chunk
        let results = UnsafeMutableBufferPointer<R?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            for i in (c * chunk)..<min(items.count, (c + 1) * chunk) { output[i] = transform(items[i]) }
        }
        return results.map { $0! }
    }
}
