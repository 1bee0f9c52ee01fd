import Foundation
import HTTPTypes

/// How many requests of a kind one key (an address, a player, a name) may make: a token bucket
/// of `burst` requests that refills at `perMinute` a minute.
public struct RateLimit: Sendable {
    /// Requests a minute, sustained.
    public var perMinute: Double
    /// Requests at once.
    public var burst: Double

    /// A limit from its rate and burst.
    public init(perMinute: Double, burst: Double) {
        self.perMinute = perMinute
        self.burst = burst
    }
}

/// The limits the service applies; 429 with `Retry-After` past them.
public struct RateLimits: Sendable {
    /// Sign-in attempts from one address.
    public var signInPerAddress = RateLimit(perMinute: 20, burst: 20)
    /// Sign-in attempts for one name, from anywhere (guessing one player's password).
    public var signInPerName = RateLimit(perMinute: 10, burst: 10)
    /// Registrations from one address.
    public var registerPerAddress = RateLimit(perMinute: 20, burst: 20)
    /// Password-reset requests from one address, and for one e-mail address from anywhere.
    public var resetsPerAddress = RateLimit(perMinute: 5, burst: 10)
    /// Check-ins by one player.
    public var checkInsPerPlayer = RateLimit(perMinute: 60, burst: 60)
    /// Check-ins from one address (a venue's shared network carries many players).
    public var checkInsPerAddress = RateLimit(perMinute: 600, burst: 600)

    /// The defaults.
    public init() {}
}

/// Token buckets by key, in memory (per process: several instances each limit on their own).
actor RateLimiter {
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]
    private let clock = ContinuousClock()

    /// Takes one request from the key's bucket.
    /// - Throws: `Problem` 429 with the seconds until a request is allowed again.
    func take(_ key: String, _ limit: RateLimit) throws {
        let now = clock.now
        var bucket = buckets[key] ?? (limit.burst, now)
        let elapsed =
            Double((now - bucket.at).components.seconds) + Double((now - bucket.at).components.attoseconds)
            / 1e18
        bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.perMinute / 60)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            let wait = Int(((1 - bucket.tokens) * 60 / limit.perMinute).rounded(.up))
            throw Problem(
                .tooManyRequests, "Too many requests", "too many requests; try again in \(max(1, wait)) s",
                retryAfterSeconds: max(1, wait))
        }
        bucket.tokens -= 1
        buckets[key] = bucket
        if buckets.count > 100_000 { forgetIdle(now) }
    }

    /// Drops the buckets that have refilled (they hold nothing a fresh bucket would not).
    private func forgetIdle(_ now: ContinuousClock.Instant) {
        buckets = buckets.filter { now - $0.value.at < .seconds(600) }
    }
}
