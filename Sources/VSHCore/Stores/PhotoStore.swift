/// Submitted photos, content-addressed: a photo's key is derived from its SHA-256, so the
/// same bytes are stored once and a key always names the same bytes.
///
/// `put` is durable when it returns (unless `durable` is false, for batches, which call
/// `flush()` once before committing the check-ins that name their photos). The methods are
/// `async` because a store may be remote (PostgreSQL); files on a local disk answer at once.
public protocol PhotoStore: Sendable {
    /// Stores the bytes under their SHA-256 (lower-case hex); a no-op when already there.
    /// - Returns: the photo's key.
    @discardableResult
    func put(_ bytes: [UInt8], sha256: String, durable: Bool) async throws -> String

    /// The bytes stored under `key`, or nil when there are none.
    func get(_ key: String) async throws -> [UInt8]?

    /// Whether a photo is stored under `key`.
    func exists(_ key: String) async -> Bool

    /// Makes every earlier `put(durable: false)` durable.
    func flush() async throws

    /// Where a moderator finds the photo under `key`: a file path, or the key in the database.
    func location(of key: String) -> String

    /// Every stored key, in order (for `vsh db copy`).
    func keys() async throws -> [String]
    /// Deletes the photo stored under `key` (nothing when there is none).
    func delete(_ key: String) async throws
}

extension PhotoStore {
    /// Stores the bytes durably.
    @discardableResult
    public func put(_ bytes: [UInt8], sha256: String) async throws -> String {
        try await put(bytes, sha256: sha256, durable: true)
    }

    /// The key of a photo with this SHA-256: `ab/abcdef….jpg`.
    public static func key(sha256: String) -> String { "\(sha256.prefix(2))/\(sha256).jpg" }

    /// Whether the photo under `key` is there and is the photo the key names (its bytes hash to
    /// the SHA-256 in the key): `.missing`, `.damaged` (emptied, cut short or replaced), `.intact`.
    public func condition(of key: String) async throws -> PhotoCondition {
        guard let bytes = try await get(key) else { return .missing }
        let name = key.split(separator: "/").last.map { String($0.prefix(64)) } ?? ""
        return SHA256.hex(bytes) == name ? .intact : .damaged
    }
}

/// What `vsh doctor` finds of an archived photo.
public enum PhotoCondition: Sendable, Equatable {
    case missing, damaged, intact
}
