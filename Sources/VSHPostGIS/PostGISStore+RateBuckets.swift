internal import PostgresNIO
public import VSHCore

extension PostGISStore: SharedRateBuckets {
    /// Takes from a bucket every instance shares (`vsh_take`, by the database's clock).
    public func takeShared(_ key: String, burst: Double, perMinute: Double, cost: Double, spend: Bool)
        async throws -> Double
    {
        let perSecond = perMinute / 60
        return try await read { db in
            try await db.query(
                "SELECT vsh_take(\(key), \(burst), \(perSecond), \(cost), \(spend))", logger: self.logger
            ).collect().first?.decode(Double.self) ?? 0
        }
    }

    /// Remembers a name and an address that signed in (a bucket whose time is the sign-in's).
    public func rememberShared(_ key: String) async throws {
        try await read { db in
            try await db.query(
                """
                INSERT INTO rate_buckets(key, tokens, at) VALUES (\("known|" + key), 0, extract(epoch FROM clock_timestamp()))
                ON CONFLICT (key) DO UPDATE SET at = excluded.at
                """, logger: self.logger)
        }
    }

    /// Whether a name and an address signed in within 30 days.
    public func isKnownShared(_ key: String) async throws -> Bool {
        try await read { db in
            try await db.query(
                """
                SELECT count(*) FROM rate_buckets
                WHERE key = \("known|" + key) AND at > extract(epoch FROM clock_timestamp()) - 30 * 86400
                """, logger: self.logger
            ).collect().first?.decode(Int.self) ?? 0
        } > 0
    }
}
