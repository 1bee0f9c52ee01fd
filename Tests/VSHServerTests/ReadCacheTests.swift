import NIOCore
import Synchronization
import Testing

@testable import VSHServer

/// The read cache's answers being made: requests that miss together share one making, a request
/// that came after a write never takes an answer begun before it, and a making that fails leaves
/// the requests that waited for it to make their own.
@Suite struct ReadCacheTests {
    /// A door the makers wait at until the test opens it, and how many makers came to it.
    final class Door: Sendable {
        private let state = Mutex<(open: Bool, arrived: Int, waiting: [CheckedContinuation<Void, Never>])>(
            (false, 0, []))

        /// How many makers came to the door.
        var arrived: Int { state.withLock { $0.arrived } }

        /// Waits until the door is open.
        func pass() async {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state -> Bool in
                    state.arrived += 1
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
        }

        /// Opens the door for everyone waiting and everyone to come.
        func open() {
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for one in waiting { one.resume() }
        }
    }

    struct Refused: Error {}

    /// A maker that waits at `door`, then answers `text` (or fails).
    static func maker(_ door: Door, _ text: String, fails: Bool = false)
        -> @Sendable () async throws -> (body: ByteBuffer, contentType: String)
    {
        {
            await door.pass()
            if fails { throw Refused() }
            return (ByteBuffer(string: text), "text/plain")
        }
    }

    /// Waits (yielding, at most 20,000 turns) until `done` holds; false if it never did.
    static func until(_ done: () -> Bool) async -> Bool {
        for _ in 0..<20_000 {
            if done() { return true }
            try? await Task.sleep(for: .microseconds(100))
        }
        return done()
    }

    @Test func requestsThatMissTogetherShareOneMaking() async throws {
        let cache = ReadCache(maxAge: .seconds(86_400))  // nothing ages out during the test
        let door = Door()
        let requests = 24
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<requests {
                group.addTask {
                    let entry = try await cache.entry("/v1/leaderboard", make: Self.maker(door, "the board"))
                    return String(buffer: entry.body) + " " + entry.etag
                }
            }
            // Every request has either come to the door (it makes the board) or waits for one that did.
            #expect(await Self.until { door.arrived + cache.waiting == requests })
            #expect(door.arrived == 1, "the board was made \(door.arrived) times for \(requests) requests")
            door.open()
            var answers: [String] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.count == requests)
        #expect(Set(answers).count == 1 && answers[0].hasPrefix("the board \""), "\(Set(answers))")
        #expect(cache.waiting == 0)
        // Kept: the next request is answered without making.
        let kept = try await cache.entry("/v1/leaderboard", make: Self.maker(door, "made again"))
        #expect(String(buffer: kept.body) == "the board")
        #expect(door.arrived == 1)
    }

    @Test func aRequestAfterAWriteDoesNotTakeAnAnswerBegunBeforeIt() async throws {
        let cache = ReadCache(maxAge: .seconds(86_400))  // nothing ages out during the test
        let before = Door()
        let after = Door()
        async let old = cache.entry("/v1/leaderboard", make: Self.maker(before, "before the write"))
        #expect(await Self.until { before.arrived == 1 })
        cache.invalidate()  // a check-in was recorded
        async let new = cache.entry("/v1/leaderboard", make: Self.maker(after, "after the write"))
        // The second request makes its own board: it does not wait for the first one's.
        #expect(await Self.until { after.arrived == 1 })
        #expect(cache.waiting == 0)
        after.open()
        before.open()
        let newBoard = try await new
        #expect(String(buffer: newBoard.body) == "after the write")
        let oldBoard = try await old
        #expect(String(buffer: oldBoard.body) == "before the write")
        // The board begun before the write is not kept; the one after it is.
        let open = Door()
        open.open()
        let kept = try await cache.entry("/v1/leaderboard", make: Self.maker(open, "made again"))
        #expect(String(buffer: kept.body) == "after the write")
    }

    @Test func aMakingThatFailsLeavesTheWaitersToMakeTheirOwn() async throws {
        let cache = ReadCache(maxAge: .seconds(86_400))  // nothing ages out during the test
        let failing = Door()
        let second = Door()
        let waiters = 5
        async let first: String = {
            do {
                _ = try await cache.entry("/v1/hunts", make: Self.maker(failing, "never", fails: true))
                return "answered"
            } catch is Refused { return "refused" }
        }()
        #expect(await Self.until { failing.arrived == 1 })
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<waiters {
                group.addTask {
                    String(
                        buffer: try await cache.entry("/v1/hunts", make: Self.maker(second, "the hunts")).body
                    )
                }
            }
            #expect(await Self.until { cache.waiting == waiters })
            #expect(second.arrived == 0)
            failing.open()
            second.open()
            var answers: [String] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        let outcome = try await first
        #expect(outcome == "refused")
        #expect(answers == Array(repeating: "the hunts", count: waiters))
        #expect(second.arrived >= 1)
        #expect(cache.waiting == 0)
    }
}
