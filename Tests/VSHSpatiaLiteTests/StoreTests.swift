import Foundation
import GRDB
import Testing
import VSHCore
import VSHGeodesy
import VSHSpatiaLite
import VSHTestSupport

@Suite struct StoreTests {
    let folder: URL
    let store: SpatiaLiteStore

    init() throws {
        folder = try TestSupport.temporaryDirectory("vsh-store")
        store = try SpatiaLiteStore(path: folder.appendingPathComponent("vsh.sqlite").path)
    }

    @Test func inspectorAsksGEOSAndTheEllipsoid() async throws {
        let bowtie = Geofence(
            Polygon(
                shell: try LinearRing([
                    Coordinate(unchecked: 0, 0), Coordinate(unchecked: 1, 1), Coordinate(unchecked: 0, 1),
                    Coordinate(unchecked: 1, 0), Coordinate(unchecked: 0, 0),
                ])))
        #expect(
            try store.inspector.inspect(bowtie).invalidReason
                == "self-intersection at longitude 0.5, latitude 0.5")
        let outsideHole = Geofence(
            Polygon(
                shell: try LinearRing([
                    Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 1), Coordinate(unchecked: 1, 1),
                    Coordinate(unchecked: 0, 0),
                ]),
                holes: [
                    try LinearRing([
                        Coordinate(unchecked: 5, 5), Coordinate(unchecked: 5, 6), Coordinate(unchecked: 6, 6),
                        Coordinate(unchecked: 5, 5),
                    ])
                ]))
        #expect(
            try store.inspector.inspect(outsideHole).invalidReason?.hasPrefix("hole lies outside shell")
                == true)
        let plaza = try square(36.12, -115.17, halfDegrees: 0.0005)
        let inspector = try SpatiaLiteInspector.standalone()
        #expect(try inspector.inspect(plaza).invalidReason == nil)
        // A 1° cell across the equator; GeographicLib's Planimeter says 12,309,234,582.5 m².
        // (SpatiaLite's ST_Area(g, 1) cannot measure a ring that crosses the equator.)
        let cell = try square(0, 0.5, halfDegrees: 0.5)
        #expect(abs(try inspector.inspect(cell).areaSquareMeters - 12_309_234_582.5) < 10)
    }

    @Test func coveringLookupsGoThroughTheSpatialIndex() async throws {
        let plan = try await store.coveringQueryPlan()
        #expect(plan.contains { $0.hasPrefix("SCAN idx_stops_geom VIRTUAL TABLE INDEX") }, "\(plan)")
        #expect(!plan.contains { $0 == "SCAN s" }, "a full scan of stops: \(plan)")
    }

    /// The CHECK constraints of the tables a check-in writes are comparisons, not lists (SQLite
    /// builds a temporary table for `IN` with three constants at every insert), and they still
    /// refuse what they refused; the file is sound after the migration that rewrote them.
    @Test func checkConstraintsAreComparisonsThatStillHold() async throws {
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            tables = "SELECT group_concat(sql, ' ') FROM sqlite_master WHERE name IN ('checkins', 'score_events', 'reviews')"
            print('lists', c.execute(tables).fetchone()[0].count(" IN ('"))
            insert = "INSERT INTO checkins(player_id, received_at, source, verdict, points, rules) VALUES (1, 'x', ?, ?, 0, '[]')"
            print('temporary', [r[1] for r in c.execute('EXPLAIN ' + insert, ('device', 'accepted'))].count('OpenEphemeral'))
            for source, verdict in [('bogus', 'accepted'), ('device', 'bogus'), ('device', 'accepted')]:
                try:
                    c.execute(insert, (source, verdict))
                    print('stored')
                except sqlite3.IntegrityError as e:
                    print('refused', 'CHECK' in str(e))
            try:
                c.execute("INSERT INTO score_events(player_id, kind, hunt_id, points, at, at_epoch, checkin_id) VALUES (1, 'bogus', 'h', 0, 'x', 0, 1)")
                print('stored')
            except sqlite3.IntegrityError as e:
                print('refused', 'CHECK' in str(e))
            c.execute("INSERT INTO players(id, name, name_key, created_at) VALUES (1, 'Ann', 'ann', 'x')")
            for role in ['organiser', 'admin']:
                try:
                    c.execute("UPDATE players SET role = ? WHERE id = 1", (role,))
                    print('stored')
                except sqlite3.IntegrityError as e:
                    print('refused', 'CHECK' in str(e))
            c.rollback()
            print(c.execute('PRAGMA integrity_check').fetchone()[0])
            """
        let result = try TestSupport.run(
            "/usr/bin/python3", ["-c", script, folder.appendingPathComponent("vsh.sqlite").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n") == [
                "lists 0", "temporary 0", "refused True", "refused True", "stored", "refused True", "stored",
                "refused True", "ok",
            ])
    }

    @Test func theAuditTrailIsAppendOnly() async throws {
        let ann = try await store.addPlayer(name: "Ann", email: nil, at: Date(timeIntervalSince1970: 0))
        let submission = Submission(
            player: ann.id,
            evidence: .device(
                position: Coordinate(unchecked: 36.1, -115.1), time: Date(timeIntervalSince1970: 100),
                accuracyMeters: 3),
            huntID: nil, receivedAt: Date(timeIntervalSince1970: 200))
        let recorded = try await store.record(submission, photoFile: nil) { _, _ in
            Decision(
                verdict: .rejected, rules: [RuleResult(.atStop, .failed, "not at a stop")], hunt: nil,
                stop: nil, points: 0, fix: nil)
        }
        #expect(recorded.id == 1)
        await #expect(throws: (any Error).self) {
            try await store.executeForTesting("UPDATE checkins SET verdict = 'accepted'")
        }
        await #expect(throws: (any Error).self) { try await store.executeForTesting("DELETE FROM checkins") }
        #expect(try await store.player(named: "ann")?.id == ann.id)
        #expect(try await store.player(named: "ANN")?.name == "Ann")
        let summary = try #require(try await store.players().first)
        #expect(summary.checkIns == 1)
        #expect(summary.points == 0)
    }

    /// Every commit is on disk when it returns (`synchronous = FULL`), however the store is opened:
    /// GRDB turns WAL on with NORMAL, which a power cut can undo.
    @Test func commitsAreDurableInBothConnectionModes() async throws {
        #expect(try await store.synchronousMode() == 2)
        let single = try SpatiaLiteStore(
            path: folder.appendingPathComponent("single.sqlite").path, connections: .single)
        #expect(try await single.synchronousMode() == 2)
    }

    @Test func notADatabaseIsADataError() async throws {
        let path = folder.appendingPathComponent("photo.jpg").path
        try Data(repeating: 0xFF, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SpatiaLiteStore(path: path)
        } throws: { error in
            (error as? StoreError)?.errorKind == .invalidData
        }
    }
}

@Suite struct NameKeyMigrationTests {
    @Test func aLeagueMadeBeforeNFKCKeysIsRekeyedOnOpening() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-store")
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("vsh.sqlite").path
        do {
            let store = try SpatiaLiteStore(path: path)
            for name in ["Ann", "Bo", "Cy"] { try await store.addPlayer(name: name, email: nil, at: Date()) }
            // As version 10 stored them: names as typed, keys lowercased().
            try await store.executeForTesting(
                """
                UPDATE players SET name = 'Jose' || char(769), name_key = 'jose' || char(769) WHERE name = 'Bo';
                UPDATE players SET name = 'ＡＮＮ', name_key = 'ａｎｎ' WHERE name = 'Cy';
                DELETE FROM grdb_migrations WHERE identifier = 'v11-name-keys';
                """)
        }
        let store = try SpatiaLiteStore(path: path)
        let jose = try await store.player(named: "JOS\u{C9}")
        #expect(jose?.name == "Jos\u{E9}")
        // "Ann" came first and keeps the name; its full-width double is kept, not looked up by it.
        #expect(try await store.player(named: "ann")?.name == "Ann")
        #expect(try await store.players().count == 3)
        await #expect(throws: LeagueError.nameTaken(name: "jos\u{E9}")) {
            try await store.addPlayer(name: "jose\u{301}", email: nil, at: Date())
        }
    }
}

extension StoreTests {
    /// A league copied into a new file (`vsh db copy`) keeps its retry keys findable: the copy
    /// gives each its slot, and the same key again is a repeat, not a second check-in.
    @Test func copiedRetryKeysAreFoundInTheCopy() async throws {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let origin = try SpatiaLiteStore(path: folder.appendingPathComponent("origin.sqlite").path)
        let ann = try await origin.addPlayer(name: "Ann", email: nil, at: t0).id
        let requests = ["k1", "k2", "k3"].map { (key: String) in
            keyedCheckIn(ann, key, at: t0) { "\(key) #\($0.id)" }
        }
        _ = try await origin.recordGroup(requests, decide: rejectingEverything)
        let copy = try SpatiaLiteStore(path: folder.appendingPathComponent("copy.sqlite").path)
        let counts = try await copy.load(from: origin, pageSize: 2)
        #expect(counts["idempotency_keys"] == 3)
        for key in ["k1", "k2", "k3"] {
            let found = try await copy.idempotentAnswer(player: ann, key: key)
            #expect(found?.answer.hasPrefix("\(key) #") == true, "\(key): \(String(describing: found))")
        }
        let again = try await copy.recordGroup(
            [keyedCheckIn(ann, "k2", at: t0) { _ in "new" }], decide: rejectingEverything)
        guard case .repeated(let earlier) = again[0] else {
            Issue.record("expected a repeat in the copy: \(again)")
            return
        }
        #expect(earlier.answer.hasPrefix("k2 #"))
        #expect(try await copy.players().reduce(0) { $0 + $1.checkIns } == 3)
    }

    /// Retry keys move to a rowid table when a league made before v37 opens, and from v40 lose
    /// their index for slots (`RetryKeySlots`): every key and its answer is kept and found again
    /// (after a reopen too), a key is still remembered once per player, and the table holds each
    /// row in its own page no more (a WITHOUT ROWID row of a whole answer spilled into an overflow
    /// page).
    @Test func retryKeysMoveToARowidTableWithTheirAnswersAndSlots() async throws {
        let path = folder.appendingPathComponent("keys.sqlite").path
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let answer = String(repeating: "a long answer ", count: 100)
        func request(_ player: PlayerID, _ key: String) -> CheckInRequest {
            keyedCheckIn(player, key, at: t0) { "#\($0.id) \(answer)" }
        }
        let decide = rejectingEverything
        var kept: [String: IdempotentAnswer] = [:]
        let ann: PlayerID
        do {
            let store = try SpatiaLiteStore(path: path)
            ann = try await store.addPlayer(name: "Ann", email: nil, at: t0).id
            let bo = try await store.addPlayer(name: "Bo", email: nil, at: t0).id
            _ = try await store.recordGroup(
                [request(ann, "k1"), request(bo, "k1"), request(ann, "k2")], decide: decide)
            for (player, key) in [(ann, "k1"), (bo, "k1"), (ann, "k2")] {
                let found = try #require(await store.idempotentAnswer(player: player, key: key))
                kept["\(player.rawValue)|\(key)"] = found
            }
            // As version 36 kept them.
            try await store.executeForTesting(
                """
                CREATE TABLE old_keys (
                    player_id INTEGER NOT NULL REFERENCES players(id), key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL, checkin_id INTEGER NOT NULL REFERENCES checkins(id),
                    answer TEXT NOT NULL, PRIMARY KEY (player_id, key)) WITHOUT ROWID;
                INSERT INTO old_keys SELECT player_id, key, fingerprint, checkin_id, answer FROM idempotency_keys;
                DROP TABLE idempotency_keys;
                ALTER TABLE old_keys RENAME TO idempotency_keys;
                DROP TABLE idempotency_slots;
                DELETE FROM grdb_migrations
                    WHERE identifier IN ('v37-idempotency-rowid', 'v40-idempotency-slots', 'v42-answers-without-rules');
                """)
        }
        let store = try SpatiaLiteStore(path: path)
        let schema = try await DatabaseQueue(path: path).read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'idempotency_keys'")
        }
        #expect(schema?.contains("WITHOUT ROWID") == false)
        #expect(schema?.contains("UNIQUE") == false)
        let (slots, indexes) = try await DatabaseQueue(path: path).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM idempotency_slots"),
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotency_keys'"
                )
            )
        }
        #expect(slots == 3 && indexes == 0)
        #expect(kept.count == 3)
        for (slot, answer) in kept {
            let parts = slot.split(separator: "|")
            let player = PlayerID(Int64(parts[0])!)
            #expect(
                try await store.idempotentAnswer(player: player, key: String(parts[1])) == answer, "\(slot)")
        }
        // Remembered: the same key again is a repeat; a new one is recorded.
        let later = try await store.recordGroup([request(ann, "k1"), request(ann, "k3")], decide: decide)
        guard case .repeated(let again) = later[0], case .recorded = later[1] else {
            Issue.record("expected a repeat, then a new check-in: \(later)")
            return
        }
        #expect(again == kept["\(ann.rawValue)|k1"])
        // Opened again, the slots are read back: every key is found, k3 among them, and kept once.
        let reopened = try SpatiaLiteStore(path: path)
        for key in ["k1", "k2", "k3"] {
            #expect(try await reopened.idempotentAnswer(player: ann, key: key) != nil, "\(key)")
        }
        let again3 = try await reopened.recordGroup([request(ann, "k3")], decide: decide)
        guard case .repeated = again3[0] else {
            Issue.record("expected k3 to be remembered after a reopen: \(again3)")
            return
        }
        let rows = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM idempotency_keys WHERE player_id = ?",
                arguments: [ann.rawValue])
        }
        #expect(rows == 3)
        // A command's one connection reads the slots when it first looks a key up.
        let command = try SpatiaLiteStore(path: path, connections: .single)
        #expect(try await command.idempotentAnswer(player: ann, key: "k2") == kept["\(ann.rawValue)|k2"])
        let fromCommand = try await command.recordGroup([request(ann, "k1")], decide: decide)
        guard case .repeated = fromCommand[0] else {
            Issue.record("expected k1 to be remembered by a command: \(fromCommand)")
            return
        }
    }
}
