import Foundation
import HTTPTypes
import VSHCore

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
    /// Sign-in attempts from one address: sized for a venue, whose players share one public
    /// address (300 at the start line: 150 at once, then 5 a second, all in within a minute).
    /// Guessing one player's password is stopped by the per-name limits, not by this one.
    public var signInPerAddress = RateLimit(perMinute: 300, burst: 150)
    /// Sign-in attempts for one name from one address (one guesser of one player's password).
    public var signInPerNameAndAddress = RateLimit(perMinute: 10, burst: 10)
    /// Failed sign-ins for one name from anywhere (a spray from many addresses). Past it, the
    /// name is refused (429) to every address that has not signed in to it before, until the
    /// bucket refills; the owner's own devices' addresses still get in.
    public var signInFailuresPerName = RateLimit(perMinute: 10, burst: 50)
    /// Registrations from one address: a venue's start line (300 players behind one address, at
    /// once), then 5 a second; each also waits for the bounded password-hashing queue, so a flood
    /// of sign-ups costs the server at most that.
    public var registerPerAddress = RateLimit(perMinute: 300, burst: 300)
    /// After this many wrong passwords in a row for one name from one address, each further
    /// attempt waits twice as long as the last (1 s, 2 s, 4 s, ... up to `maxBackOffSeconds`),
    /// until a right one.
    public var failuresBeforeBackOff = 5
    /// The first back-off, seconds; each further wrong password doubles it.
    public var firstBackOffSeconds = 1
    /// The longest back-off, seconds: a guesser slows to one try a minute per address, and an
    /// owner behind the same address as a guesser waits a minute at most.
    public var maxBackOffSeconds = 60
    /// Password-reset requests from one address, and for one e-mail address from anywhere.
    public var resetsPerAddress = RateLimit(perMinute: 5, burst: 10)
    /// Check-ins by one player.
    public var checkInsPerPlayer = RateLimit(perMinute: 60, burst: 60)
    /// Check-ins from one address (a venue's shared network carries many players).
    public var checkInsPerAddress = RateLimit(perMinute: 600, burst: 600)
    /// Photo bytes one player may upload, as a quota on what their check-ins add to the archive
    /// (each keeps at most what it uploaded): 1 GiB a day, all of it at once.
    public var photoBytesPerPlayer = RateLimit(perMinute: Double(1 << 30) / 1440, burst: Double(1 << 30))
    /// Profile pictures one player may upload (each is decoded and encoded anew).
    public var avatarsPerPlayer = RateLimit(perMinute: 6, burst: 10)
    /// Wrong join codes one player may try: a typo or two, not a search of the codes.
    public var wrongJoinCodesPerPlayer = RateLimit(perMinute: 5, burst: 10)
    /// Wrong join codes from one address: a venue's players mistype too, but one guesser with many
    /// accounts is stopped (with 31^8 codes, 120 an hour find one hunt in millions of years).
    public var wrongJoinCodesPerAddress = RateLimit(perMinute: 2, burst: 60)

    /// Teams one player may make: a team or two for an event, not a flood of empty ones.
    public var teamsPerPlayer = RateLimit(perMinute: 0.2, burst: 5)
    /// Positions one player sends for the organisers' map: the web app sends one every 30 s at
    /// most; this leaves room for a page reloaded a few times.
    public var positionsPerPlayer = RateLimit(perMinute: 6, burst: 6)

    /// The defaults.
    public init() {}
}

/// Token buckets by key, in memory; the account limits (sign-in, sign-up, password resets) in the
/// database instead when it offers buckets every instance shares (PostgreSQL: several `vsh serve`
/// then count one limit together). Check-in, avatar and photo-byte limits stay in each process.
actor RateLimiter {
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]
    /// When each table is next swept of what it no longer needs (see `Sweeps`).
    private var sweeps = (buckets: Sweeps(), known: Sweeps(), failures: Sweeps())
    /// The sweeps made so far, of the three tables together (for tests).
    private(set) var sweepsMade = 0
    private let clock = ContinuousClock()
    /// The database's shared buckets, if any.
    private let shared: (any SharedRateBuckets)?

    /// The kinds of key (their first part) counted in the shared buckets.
    static let sharedKinds: Set<Substring> = [
        "sign-in", "sign-in-pair", "sign-in-failures", "register", "reset", "join-code",
    ]

    init(shared: (any SharedRateBuckets)? = nil) { self.shared = shared }

    /// The shared buckets, when `key` is of a kind they count.
    private func sharedBuckets(for key: String) -> (any SharedRateBuckets)? {
        guard let shared, let kind = key.split(separator: "|", maxSplits: 1).first,
            Self.sharedKinds.contains(kind)
        else { return nil }
        return shared
    }

    /// Takes from the shared bucket of `key`; 429 when it holds too little.
    private func takeShared(
        _ buckets: any SharedRateBuckets, _ key: String, _ limit: RateLimit, spend: Bool, cost: Double
    ) async throws {
        let wait = try await buckets.takeShared(
            key, burst: limit.burst, perMinute: limit.perMinute, cost: cost, spend: spend)
        guard wait > 0 else { return }
        let seconds = max(1, Int(wait.rounded(.up)))
        throw Problem(
            .tooManyRequests, "Too many requests", "too many requests; try again in \(seconds) s",
            retryAfterSeconds: seconds)
    }

    /// Addresses that signed in to a name, by `name|address`, with when (remembered 30 days).
    private var known: [String: ContinuousClock.Instant] = [:]

    /// Takes one request from the key's bucket.
    /// - Throws: `Problem` 429 with the seconds until a request is allowed again.
    func take(_ key: String, _ limit: RateLimit, cost: Double = 1) async throws {
        do {
            if let shared = sharedBuckets(for: key) {
                try await takeShared(shared, key, limit, spend: true, cost: cost)
            } else {
                try take(key, limit, spend: true, cost: cost)
            }
        } catch let problem as Problem {
            ServiceMetrics.rateLimited(key)
            throw problem
        }
    }

    /// Throws as `take` would, without taking anything (a bucket that only failures drain).
    func check(_ key: String, _ limit: RateLimit) async throws {
        do {
            if let shared = sharedBuckets(for: key) {
                try await takeShared(shared, key, limit, spend: false, cost: 1)
            } else {
                try take(key, limit, spend: false)
            }
        } catch let problem as Problem {
            ServiceMetrics.rateLimited(key)
            throw problem
        }
    }

    /// Takes one request from the key's bucket even when it is empty (a failure that happened).
    func spend(_ key: String, _ limit: RateLimit) async {
        if let shared = sharedBuckets(for: key) {
            _ = try? await shared.takeShared(
                key, burst: limit.burst, perMinute: limit.perMinute, cost: 1, spend: true)
        } else {
            try? take(key, limit, spend: true)
        }
    }

    /// Remembers that `key` (a name and an address) succeeded.
    func remember(_ key: String) async {
        if let shared { try? await shared.rememberShared(key) }
        known[key] = clock.now
        if sweeps.known.due(known.count) {
            let now = clock.now
            known = known.filter { now - $0.value < .seconds(30 * 24 * 3600) }
            sweeps.known.swept(leaving: known.count)
            sweepsMade += 1
        }
    }

    /// Wrong passwords in a row by `name|address`, and until when the next attempt must wait.
    private var failures: [String: (count: Int, until: ContinuousClock.Instant)] = [:]

    /// Throws 429 with the seconds left while `key` is backing off after wrong passwords.
    func checkBackOff(_ key: String) throws {
        guard let entry = failures[key] else { return }
        let left = entry.until - clock.now
        guard left > .zero else { return }
        let seconds = max(1, Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0))
        ServiceMetrics.rateLimited("back-off")
        throw Problem(
            .tooManyRequests, "Too many requests",
            "too many wrong passwords; try again in \(seconds) s", retryAfterSeconds: seconds)
    }

    /// Counts a wrong password for `key`; past `limits.failuresBeforeBackOff` in a row, the next
    /// attempt waits 1 s, then 2, 4, ... up to `limits.maxBackOffSeconds`.
    func failed(_ key: String, _ limits: RateLimits) {
        let now = clock.now
        let count = (failures[key]?.count ?? 0) + 1
        let over = count - limits.failuresBeforeBackOff
        let wait = over < 0 ? 0 : min(limits.maxBackOffSeconds, limits.firstBackOffSeconds << min(over, 20))
        failures[key] = (count, now + .seconds(wait))
        if sweeps.failures.due(failures.count) {
            failures = failures.filter { now - $0.value.until < .seconds(3600) }
            sweeps.failures.swept(leaving: failures.count)
            sweepsMade += 1
        }
    }

    /// Forgets `key`'s wrong passwords (a right one came).
    func succeeded(_ key: String) { failures[key] = nil }

    /// Whether `key` succeeded within 30 days.
    func isKnown(_ key: String) async -> Bool {
        if let at = known[key], clock.now - at < .seconds(30 * 24 * 3600) { return true }
        guard let shared else { return false }
        return (try? await shared.isKnownShared(key)) ?? false
    }

    private func take(_ key: String, _ limit: RateLimit, spend: Bool, cost: Double = 1) throws {
        let now = clock.now
        var bucket = buckets[key] ?? (limit.burst, now)
        let elapsed =
            Double((now - bucket.at).components.seconds) + Double((now - bucket.at).components.attoseconds)
            / 1e18
        bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.perMinute / 60)
        bucket.at = now
        guard bucket.tokens >= cost else {
            buckets[key] = bucket
            let wait = Int(((cost - bucket.tokens) * 60 / limit.perMinute).rounded(.up))
            throw Problem(
                .tooManyRequests, "Too many requests", "too many requests; try again in \(max(1, wait)) s",
                retryAfterSeconds: max(1, wait))
        }
        if spend { bucket.tokens -= cost }
        buckets[key] = bucket
        if sweeps.buckets.due(buckets.count) { forgetIdle(now) }
    }

    /// Drops the buckets that have refilled (they hold nothing a fresh bucket would not).
    private func forgetIdle(_ now: ContinuousClock.Instant) {
        buckets = buckets.filter { now - $0.value.at < .seconds(600) }
        sweeps.buckets.swept(leaving: buckets.count)
        sweepsMade += 1
    }

    /// When a table of keys is next swept: past 100,000 keys, then past twice what the last sweep
    /// left. A sweep reads every key, so a table that still held over 100,000 live keys after one
    /// was swept again on every request: at an event's start, 100,000 players checking in within
    /// ten minutes made each later check-in read them all, one request at a time (the server fell
    /// from 6,650 check-ins a second to about 100). Now the sweeps cost each request a constant on
    /// average, and a table holds at most twice what its last sweep left (or 100,000 keys).
    struct Sweeps {
        static let least = 100_000
        private var next = Self.least

        /// Whether a table of `count` keys is to be swept now.
        func due(_ count: Int) -> Bool { count > next }

        /// Records a sweep that left `count` keys.
        mutating func swept(leaving count: Int) { next = max(Self.least, 2 * count) }
    }
}
