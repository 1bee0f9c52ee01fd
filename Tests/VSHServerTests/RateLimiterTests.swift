import Testing

@testable import VSHServer

/// The rate limiter's tables of keys past 100,000 live keys, as at an event's start when every
/// player checks in within minutes: swept now and then, never on every request, and nothing live
/// forgotten.
@Suite struct RateLimiterTests {
    static let keys = 100_300

    /// Each player's first check-in takes from a bucket of their own. Past 100,000 live buckets,
    /// every request swept them all again (300 sweeps here, each reading every bucket); now one.
    @Test func manyLiveBucketsAreSweptOnceNotOnEveryRequest() async throws {
        let limiter = RateLimiter()
        // 60 at once, refilled at one a thousand minutes: nothing refills during the test.
        let limit = RateLimit(perMinute: 0.001, burst: 60)
        for i in 0..<Self.keys { try await limiter.take("checkin|\(i)", limit) }
        #expect(await limiter.sweepsMade == 1)
        // The first player's bucket was kept: 59 more requests are let through, the next is not.
        for _ in 0..<59 { try await limiter.take("checkin|0", limit) }
        await #expect(throws: Problem.self) { try await limiter.take("checkin|0", limit) }
    }

    /// The same for the names and addresses that signed in, and for wrong passwords.
    @Test func manyLiveSignInsAndFailuresAreSweptOnce() async throws {
        let limiter = RateLimiter()
        for i in 0..<Self.keys { await limiter.remember("ann\(i)|192.0.2.1") }
        #expect(await limiter.sweepsMade == 1)
        #expect(await limiter.isKnown("ann0|192.0.2.1"))
        let limits = RateLimits()
        for i in 0..<Self.keys { await limiter.failed("bob\(i)|192.0.2.1", limits) }
        #expect(await limiter.sweepsMade == 2)
    }
}
