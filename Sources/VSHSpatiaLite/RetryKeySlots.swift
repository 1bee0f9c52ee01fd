internal import GRDB
import Synchronization
import VSHCore

/// Where each retry key of a league is kept: `idempotency_keys` holds the keys and their answers
/// with no index, appended as check-ins come; `idempotency_slots` holds, for each key row, a slot
/// (the first 8 bytes of the SHA-256 of player and key); and the server holds the slots in
/// memory, read at start. A key is found by its slot's rows, each checked for its player and key.
///
/// An index by player and key wrote a leaf at a random place of the league file for every check-in
/// the web app sent (each carries a key), and most of the pages above it: about a third of what a
/// check-in wrote, and a tenth of its CPU (docs/speed.md, "seventeenth session"). A key is kept
/// once because the one writer looks it up before keeping it, in the same transaction; the league
/// is served by one process, which is the one that keeps keys (docs/operations.md).
final class RetryKeySlots: Sendable {
    /// Each slot's first row, and the rest where a slot holds more than one (two keys of one slot,
    /// a row of a transaction that rolled back): about 40 bytes a key.
    private struct Table {
        /// Whether the league's slots were read (a server reads them at start, a command when it
        /// first looks a key up).
        var loaded = false
        var first: [Int64: Int64] = [:]
        var more: [Int64: [Int64]] = [:]

        mutating func add(_ row: Int64, at slot: Int64) {
            if first[slot] == nil { first[slot] = row } else { more[slot, default: []].append(row) }
        }

        func holds(_ row: Int64, at slot: Int64) -> Bool {
            first[slot] == row || more[slot]?.contains(row) == true
        }
    }
    private let table = Mutex(Table())

    /// The slot of `player`'s `key`.
    static func slot(_ player: PlayerID, _ key: String) -> Int64 {
        var hash = SHA256()
        hash.update(Array("\(player.rawValue) \(key)".utf8))
        return Int64(bitPattern: UInt64(hash.finalizeHex().prefix(16), radix: 16)!)
    }

    /// The key rows kept at `slot` (most slots: none, and no read of the database is needed), or
    /// nil before the league's slots were read.
    func rows(at slot: Int64) -> [Int64]? {
        table.withLock { t in
            guard t.loaded else { return nil }
            return t.first[slot].map { [$0] + (t.more[slot] ?? []) } ?? []
        }
    }

    /// The key rows kept at `slot`, the league's slots read from `db` first when they were not.
    func rows(at slot: Int64, reading db: Database) throws -> [Int64] {
        if let rows = rows(at: slot) { return rows }
        try load(db)
        return rows(at: slot) ?? []
    }

    /// A key row kept at `slot` (from inside its transaction: a row of a transaction that rolls
    /// back stays listed, and is passed over when its player and key are checked).
    func add(_ row: Int64, at slot: Int64) { table.withLock { $0.add(row, at: slot) } }

    /// Reads the league's slots (again, with `force`), keeping the rows added meanwhile: a key
    /// kept after the read began is in memory already.
    func load(_ db: Database, force: Bool = false) throws {
        if !force, table.withLock({ $0.loaded }) { return }
        var all = Table()
        all.first.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM idempotency_slots") ?? 0)
        let cursor = try Row.fetchCursor(db, sql: "SELECT slot, key_id FROM idempotency_slots")
        while let row = try cursor.next() { all.add(row[1], at: row[0]) }
        table.withLock { t in
            guard force || !t.loaded else { return }
            for (slot, row) in t.first where !all.holds(row, at: slot) { all.add(row, at: slot) }
            for (slot, rows) in t.more {
                for row in rows where !all.holds(row, at: slot) { all.add(row, at: slot) }
            }
            all.loaded = true
            t = all
        }
    }

    /// Slots for the key rows that have none (a migrated league's, a copied league's).
    static func fill(_ db: Database) throws {
        let missing = try Row.fetchAll(
            db,
            sql: """
                SELECT k.rowid, k.player_id, k.key FROM idempotency_keys k
                WHERE NOT EXISTS (SELECT 1 FROM idempotency_slots s WHERE s.key_id = k.rowid)
                """)
        let insert = try db.makeStatement(
            sql: "INSERT INTO idempotency_slots(slot, player_id, key_id) VALUES (?, ?, ?)")
        for row in missing {
            let player: Int64 = row[1]
            let key: String = row[2]
            try insert.execute(arguments: [slot(PlayerID(player), key), player, row[0] as Int64])
        }
    }
}
