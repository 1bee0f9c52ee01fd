/// Work over many items on at most `width` tasks at once, results in input order.
///
/// A library never takes every core by itself: the caller chooses the width (the CLI
/// passes the machine's core count; a server keeps cores for its requests).
public enum BoundedParallel {
    /// Applies `transform` to every item with at most `width` child tasks running, in
    /// chunks so that a task does enough work to pay for itself.
    /// - Returns: one result an item, in the items' order.
    public static func map<T: Sendable, R: Sendable>(
        _ items: [T], width: Int, _ transform: @escaping @Sendable (T) async -> R
    ) async -> [R] {
        let width = max(1, width)
        guard items.count > 1, width > 1 else {
            var results: [R] = []
            for item in items { results.append(await transform(item)) }
            return results
        }
        let chunk = max(1, min(256, (items.count + width * 8 - 1) / (width * 8)))
        let starts = Array(stride(from: 0, to: items.count, by: chunk))
        var results = [R?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, [R]).self) { group in
            var next = 0
            func launch() {
                let start = starts[next]
                next += 1
                let slice = Array(items[start..<min(items.count, start + chunk)])
                group.addTask {
                    var done: [R] = []
                    for item in slice { done.append(await transform(item)) }
                    return (start, done)
                }
            }
            while next < min(width, starts.count) { launch() }
            while let (start, done) = await group.next() {
                for (offset, value) in done.enumerated() { results[start + offset] = value }
                if next < starts.count { launch() }
            }
        }
        return results.map { $0! }
    }
}
