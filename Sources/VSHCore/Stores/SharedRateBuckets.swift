/// Token buckets kept in the database, so that several `vsh serve` on one league count one
/// limit together (a client that reaches every instance gets each limit once, not once an
/// instance). PostgreSQL provides them; a SpatiaLite league is served by one process, whose
/// buckets in memory are exact.
public protocol SharedRateBuckets: Sendable {
    /// Takes `cost` from the bucket `key` (holding at most `burst`, refilled `perMinute`), as one
    /// atomic step against every other instance; with `spend` false, only looks.
    /// - Returns: 0 when there was enough (and it was taken, with `spend`), else the seconds until there is.
    func takeShared(_ key: String, burst: Double, perMinute: Double, cost: Double, spend: Bool) async throws
        -> Double
    /// Remembers that `key` (a name and an address) signed in, for 30 days.
    func rememberShared(_ key: String) async throws
    /// Whether `key` signed in within 30 days.
    func isKnownShared(_ key: String) async throws -> Bool
}
