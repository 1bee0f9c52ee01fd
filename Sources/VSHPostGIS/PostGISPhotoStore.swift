import Foundation
internal import Logging
internal import NIOCore
internal import PostgresNIO
public import VSHCore

/// Photos and pictures in the PostGIS database's `photos` table (`bytea`), content-addressed
/// with the same keys as the files beside a SpatiaLite database (`ab/<sha256>.jpg`): every
/// `vsh serve` on the league reads what any of them stored, whatever host it runs on.
/// A `put` is committed (durable) when it returns; `flush` has nothing left to do.
public struct PostGISPhotoStore: PhotoStore {
    let store: PostGISStore

    /// The photo store of `store`'s database.
    public init(store: PostGISStore) {
        self.store = store
    }

    /// Stores the bytes under their SHA-256 (a no-op when that key is already stored).
    @discardableResult
    public func put(_ bytes: [UInt8], sha256: String, durable: Bool) async throws -> String {
        guard sha256.count == 64, sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw PostGISError(
                kind: .data, message: "invalid photo hash \"\(sha256.prefix(80))\"", location: store.location)
        }
        let key = Self.key(sha256: sha256)
        let buffer = ByteBuffer(bytes: bytes)
        try await store.read { db in
            try await db.query(
                """
                INSERT INTO photos(key, sha256, bytes) VALUES (\(key), \(sha256), \(buffer))
                ON CONFLICT (key) DO UPDATE SET bytes = EXCLUDED.bytes
                WHERE encode(sha256(photos.bytes), 'hex') <> EXCLUDED.sha256
                """, logger: store.logger)
        }
        return key
    }

    /// The bytes stored under `key`, or nil.
    public func get(_ key: String) async throws -> [UInt8]? {
        try await store.read { db in
            try await db.query("SELECT bytes FROM photos WHERE key = \(key)", logger: store.logger).collect()
                .first
                .map { Array(try $0.decode(ByteBuffer.self).readableBytesView) }
        }
    }

    /// Whether a photo is stored under `key` (false when the database cannot be asked).
    public func exists(_ key: String) async -> Bool {
        (try? await store.read { db in
            try await !db.query("SELECT 1 FROM photos WHERE key = \(key)", logger: store.logger).collect()
                .isEmpty
        }) ?? false
    }

    /// Nothing to do: every `put` was committed.
    public func flush() async throws {}

    /// The key, marked as held in the database's `photos` table.
    public func location(of key: String) -> String { "photos:" + key }

    /// Deletes the photo under `key`.
    public func delete(_ key: String) async throws {
        try await store.read { db in
            try await db.query("DELETE FROM photos WHERE key = \(key)", logger: store.logger)
        }
    }

    /// Every stored key, in order (for `vsh db copy`).
    public func keys() async throws -> [String] {
        try await store.read { db in
            try await db.query("SELECT key FROM photos ORDER BY key", logger: store.logger).collect().map {
                try $0.decode(String.self)
            }
        }
    }
}
