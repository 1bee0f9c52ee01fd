import Foundation
internal import GRDB
public import VSHCore
import VSHSQL

extension SpatiaLiteStore {
    /// Decides and records one submission in an IMMEDIATE transaction (facts, rules, insert, rescore).
    public func record(_ submission: Submission, photoFile: String?, decide: @escaping CheckInDecider)
        async throws
        -> RecordedCheckIn
    {
        try await write { db in
            let name = try Self.playerName(db, submission.player)
            let history = TransactionHistory(db, perceptual: self.perceptual, huntCache: self.huntCache)
            let facts = try CheckInFacts.gather(for: submission, from: history)
            let decision = decide(submission, facts)
            let id = try Self.insert(db, submission, decision: decision, photoFile: photoFile)
            var awards: [ScoreEvent] = []
            if decision.verdict == .accepted {
                awards = try Self.scoreAccepted(db, playerID: submission.player, newIDs: [id]).filter {
                    $0.checkInID == id && $0.kind.isAward
                }
            }
            return RecordedCheckIn(
                id: id, playerID: submission.player, player: name, receivedAt: submission.receivedAt,
                source: submission.source, decision: decision, state: CheckInState(decision.verdict),
                photoFile: photoFile,
                awards: awards)
        }
    }

    /// Decides and records many in one IMMEDIATE transaction: one durable commit.
    public func recordBatch(
        _ submissions: [(submission: Submission, photoFile: String?)], decide: @escaping CheckInDecider
    )
        async throws -> [RecordedCheckIn]
    {
        try await recordGroup(
            submissions.map { CheckInRequest(submission: $0.submission, photoFile: $0.photoFile) },
            decide: decide
        ).compactMap {
            if case .recorded(let recorded, _) = $0 { return recorded }
            return nil
        }
    }

    /// Groups are decided at high priority: SQLite's one writer is the service's serial stage, and a
    /// group is two hops to its queue and back (`CheckInStore.groupPriority`).
    public var groupPriority: TaskPriority? { .high }

    /// Decides and records a group in one IMMEDIATE transaction: one durable commit. Retry keys are
    /// looked up and kept inside it, so two requests with one key record one check-in.
    public func recordGroup(_ requests: [CheckInRequest], decide: @escaping CheckInDecider) async throws
        -> [CheckInOutcome]
    {
        // The sessions' last-use stamps that wait ride in the group's transaction.
        let stamps = takeLastUseStamps()
        do {
            return try await recordGroup(requests, stamps: stamps, decide: decide)
        } catch {
            restoreLastUseStamps(stamps)
            throw error
        }
    }

    private func recordGroup(
        _ requests: [CheckInRequest], stamps: [String: String], decide: @escaping CheckInDecider
    ) async throws -> [CheckInOutcome] {
        try await write { db in
            try Self.writeLastUseStamps(db, stamps)
            var names: [PlayerID: String] = [:]
            var rescore: [PlayerID: [Int64]] = [:]
            let history = TransactionHistory(db, perceptual: self.perceptual, huntCache: self.huntCache)
            var outcomes: [CheckInOutcome] = []
            var recordedAt: [Int] = []
            var claimed: [String: Int] = [:]
            var repeats: [(at: Int, of: Int)] = []
            // Each new key's slot, by the request's place: hashed once, to look it up and to keep it.
            var keySlots: [Int: Int64] = [:]
            // Each kept answer's rules, by the request's place: the answer is kept without them.
            var rulesText: [Int: String] = [:]
            for request in requests {
                let submission = request.submission
                if let claim = request.idempotency {
                    let keySlot = RetryKeySlots.slot(submission.player, claim.key)
                    if let earlier = try Self.idempotentAnswer(
                        db, player: submission.player, key: claim.key, slot: keySlot, slots: self.retrySlots)
                    {
                        outcomes.append(.repeated(earlier))
                        continue
                    }
                    let slot = "\(submission.player.rawValue)|\(claim.key)"
                    if let first = claimed[slot] {
                        repeats.append((outcomes.count, first))
                        outcomes.append(
                            .repeated(IdempotentAnswer(checkInID: 0, fingerprint: "", answer: "")))
                        continue
                    }
                    claimed[slot] = outcomes.count
                    keySlots[outcomes.count] = keySlot
                }
                if names[submission.player] == nil {
                    names[submission.player] = try Self.playerName(db, submission.player)
                }
                let facts = try CheckInFacts.gather(for: submission, from: history)
                let decision = decide(submission, facts)
                let rules = RuleResult.compactText(decision.rules)
                let id = try Self.insert(
                    db, submission, decision: decision, photoFile: request.photoFile, rules: rules)
                if request.idempotency != nil { rulesText[outcomes.count] = rules }
                if decision.verdict == .accepted, let stop = decision.stop, let fix = decision.fix {
                    rescore[submission.player, default: []].append(id)
                    history.accepted(
                        player: submission.player, huntID: stop.huntID, stopID: stop.id, at: fix.time)
                }
                recordedAt.append(outcomes.count)
                outcomes.append(
                    .recorded(
                        RecordedCheckIn(
                            id: id, playerID: submission.player, player: names[submission.player]!,
                            receivedAt: submission.receivedAt, source: submission.source, decision: decision,
                            state: CheckInState(decision.verdict), photoFile: request.photoFile),
                        answer: nil))
            }
            var awards: [Int64: [ScoreEvent]] = [:]
            if !rescore.isEmpty {
                let catalog = try history.scoringCatalog()
                let layout = try history.scoringLayout(of: catalog)
                for (player, newIDs) in rescore {
                    for event in try Self.scoreAccepted(
                        db, playerID: player, newIDs: newIDs, catalog: catalog, layout: layout)
                    where event.kind.isAward {
                        awards[event.checkInID, default: []].append(event)
                    }
                }
            }
            // Answers are made once the awards are known, and kept under their keys.
            for (i, request) in zip(recordedAt, recordedAt.map { requests[$0] }) {
                guard case .recorded(var recorded, _) = outcomes[i] else { continue }
                recorded.awards = awards[recorded.id] ?? []
                recorded.rulesText = rulesText[i]
                var answer: String?
                if let claim = request.idempotency {
                    let text = claim.answer(recorded)
                    answer = text
                    let player = request.submission.player
                    let kept = RulesInAnswer(answer: text, rules: rulesText[i] ?? "")
                    try RawStatement(
                        db,
                        """
                        INSERT INTO idempotency_keys(player_id, key, fingerprint, checkin_id, answer, rules_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """
                    ).insert([
                        .integer(player.rawValue), .text(claim.key), .text(claim.fingerprint),
                        .integer(recorded.id),
                        .text(kept.answer), .integer(kept.rulesAt.map(Int64.init)),
                    ])
                    let row = db.lastInsertedRowID
                    let slot = keySlots[i] ?? RetryKeySlots.slot(player, claim.key)
                    try RawStatement(
                        db, "INSERT INTO idempotency_slots(slot, player_id, key_id) VALUES (?, ?, ?)"
                    )
                    .insert([.integer(slot), .integer(player.rawValue), .integer(row)])
                    self.retrySlots.add(row, at: slot)
                }
                outcomes[i] = .recorded(recorded, answer: answer)
            }
            // The same key twice in one group: the later one gets the first one's answer.
            for (at, first) in repeats {
                if case .recorded(let recorded, let answer?) = outcomes[first],
                    let claim = requests[first].idempotency
                {
                    outcomes[at] = .repeated(
                        IdempotentAnswer(
                            checkInID: recorded.id, fingerprint: claim.fingerprint, answer: answer))
                }
            }
            return outcomes
        }
    }

    /// The answer kept under a player's retry key.
    public func idempotentAnswer(player: PlayerID, key: String) async throws -> IdempotentAnswer? {
        // A key no slot holds was never kept: no read at all.
        let slot = RetryKeySlots.slot(player, key)
        if retrySlots.rows(at: slot)?.isEmpty == true { return nil }
        let slots = retrySlots
        return try database.readHere { db in
            try Self.idempotentAnswer(db, player: player, key: key, slot: slot, slots: slots)
        }
    }

    /// The answer kept under `player`'s `key`, whose slot is `slot`.
    static func idempotentAnswer(
        _ db: Database, player: PlayerID, key: String, slot: Int64, slots: RetryKeySlots
    ) throws -> IdempotentAnswer? {
        for row in try slots.rows(at: slot, reading: db) {
            // A cached statement: preparing one runs GRDB's authorizer for each column.
            if let kept = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT k.checkin_id, k.fingerprint, \(RulesInAnswer.keptAnswer)
                        FROM idempotency_keys k
                        WHERE k.rowid = ? AND k.player_id = ? AND k.key = ?
                        """),
                arguments: [row, player.rawValue, key])
            {
                return IdempotentAnswer(checkInID: kept[0], fingerprint: kept[1], answer: kept[2])
            }
        }
        return nil
    }

    /// The stops of a hunt the player holds an accepted check-in at (`checkin_state`).
    public func visitedStops(player: PlayerID, hunt huntID: String) async throws -> Set<String> {
        try await read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT stop_id FROM checkin_state
                        WHERE player_id = ? AND hunt_id = ? AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.counts()) AND stop_id IS NOT NULL
                        """,
                    arguments: [player.rawValue, huntID]))
        }
    }

    /// What the player did with the questions of a hunt's stops (`CheckInHistory.answerTries`).
    static func answerTries(_ db: Database, player: PlayerID, hunt huntID: String, excluding checkIn: Int64?)
        throws -> [String: AnswerTries]
    {
        var found: [String: AnswerTries] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT stop_id, SUM(answer_right = 0), MAX(answer_right = 1 AND state IN ('accepted', 'pending'))
                FROM checkin_state
                WHERE player_id = ? AND hunt_id = ? AND stop_id IS NOT NULL AND answer_right IS NOT NULL AND id <> ?
                GROUP BY stop_id
                """,
            arguments: [player.rawValue, huntID, checkIn ?? 0])
        {
            found[row[0]] = AnswerTries(wrong: row[1], right: (row[2] as Int) == 1)
        }
        return found
    }

    static func insert(
        _ db: Database, _ submission: Submission, decision: Decision, photoFile: String?,
        overturns: Int64? = nil, rules: String? = nil
    ) throws -> Int64 {
        let position = submission.reportedPosition
        let fixTime = decision.fix?.time ?? submission.fixTime(in: decision.hunt)
        // Bound through SQLite's C API (`RawStatement`): GRDB's boxed arguments were a third of the
        // insert's time outside SQLite.
        let values: [RawStatement.Value] = [
            .integer(submission.player.rawValue), .text(RFC3339.format(submission.receivedAt)),
            .text(submission.source.rawValue), .text(photoFile),
            .text(submission.photo?.fileSHA256), .text(submission.photo?.imageSHA256),
            .text(submission.photo?.pixelSHA256),
            .integer(submission.photo?.perceptualHash.map { Int64(bitPattern: $0) }),
            .real(submission.clockTime.timeIntervalSince1970),
            .real(position?.latitude), .real(position?.longitude), .real(submission.accuracyMeters),
            .text(fixTime.map(RFC3339.format)), .real(fixTime?.timeIntervalSince1970),
            .text(decision.hunt?.id), .text(decision.stop?.id), .text(decision.verdict.rawValue),
            .integer(Int64(decision.points)),
            .text(rules ?? RuleResult.compactText(decision.rules)), .integer(overturns),
            .integer(decision.answerRight.map { $0 ? 1 : 0 }),
        ]
        try RawStatement(
            db,
            """
            INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256,
                pixel_sha256, phash, clock_epoch, lat, lon, accuracy_m, fix_time, fix_epoch, hunt_id, stop_id,
                verdict, points, rules, overturns, answer_right, hunt_revision, team_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                (SELECT revision FROM hunts WHERE id = ?15),
                (SELECT team_id FROM team_members WHERE hunt_id = ?15 AND player_id = ?1))
            """
        ).insert(values)
        return db.lastInsertedRowID
    }
}

/// One submission of a batch, as a `Sendable` value for the write closure.
private struct BatchEntry: Sendable {
    var submission: Submission
    var photoFile: String?
}

/// `CheckInHistory` inside one write transaction. Keeps what the transaction has
/// already read: hunt definitions (a stop's geometry is parsed once) and each
/// player's visited stops per hunt, updated as the transaction accepts check-ins
/// (a batch of one player's photos would otherwise re-read their history for every photo).
final class TransactionHistory: CheckInHistory {
    let db: Database
    let perceptual: PerceptualIndex
    private var hunts: [String: Hunt?] = [:]
    private var visited: [String: [String: Date]] = [:]
    /// The last check-in id committed when this transaction first asked for near copies.
    private var committedUpTo: Int64?
    /// This transaction's own check-ins with a perceptual hash, read so far (by id, up to
    /// `ownReadUpTo`): each near-copy question reads only those recorded since the last one
    /// (a batch of 500 read its growing list again for each of them, a tenth of the batch).
    private var own: [(id: Int64, hash: UInt64, player: Int64, image: String?, pixels: String?)] = []
    private var ownReadUpTo: Int64 = 0

    let huntCache: HuntCache
    /// The definitions' token and files' fingerprint (`sync_state`), read once a transaction; nil
    /// when the league has no token: then hunts are decoded afresh.
    private var definitions: String??

    init(_ db: Database, perceptual: PerceptualIndex, huntCache: HuntCache) {
        self.db = db
        self.perceptual = perceptual
        self.huntCache = huntCache
    }

    /// The definitions' token and files' fingerprint, read once a transaction (nil: no token).
    func definitionsToken() throws -> String? {
        if definitions == nil { definitions = .some(try SpatiaLiteStore.definitionsToken(db)) }
        return definitions ?? nil
    }

    /// Hunts and badges as scoring needs them: read and decoded once for a token of the
    /// definitions, as the hunts are (each group of check-ins read every hunt's stops and decoded
    /// every badge's rule: 6 % of the writer's time under check-ins).
    func scoringCatalog() throws -> (hunts: [ScoringHunt], badges: [Badge]) {
        guard let token = try definitionsToken() else { return try SpatiaLiteStore.scoringCatalog(db) }
        if let kept = huntCache.catalog(definitions: token) { return kept }
        let catalog = try SpatiaLiteStore.scoringCatalog(db)
        huntCache.keep(catalog: catalog, definitions: token)
        return catalog
    }

    /// The scoring layout of `catalog` (this transaction's `scoringCatalog()`), kept for the
    /// definitions token as the catalog is.
    func scoringLayout(of catalog: (hunts: [ScoringHunt], badges: [Badge])) throws -> Scoring.Layout {
        guard let token = try definitionsToken() else {
            return Scoring.Layout(hunts: catalog.hunts, badges: catalog.badges)
        }
        if let kept = huntCache.layout(definitions: token) { return kept }
        let layout = Scoring.Layout(hunts: catalog.hunts, badges: catalog.badges)
        huntCache.keep(layout: layout, definitions: token)
        return layout
    }

    func hunt(id: String) throws -> Hunt? {
        if let known = hunts[id] { return known }
        let token = try definitionsToken()
        if let token, let cached = huntCache.hunt(id: id, definitions: token) {
            hunts[id] = cached
            return cached
        }
        let hunt = try SpatiaLiteStore.loadHunts(db, id: id).first?.hunt
        hunts[id] = hunt
        if let token { huntCache.keep(hunt, id: id, definitions: token) }
        return hunt
    }

    func huntIDs() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM hunts ORDER BY position")
    }

    func joinedHunts(player: PlayerID) throws -> Set<String> {
        try SpatiaLiteStore.joinedHunts(db, player: player)
    }

    func teamHunts(player: PlayerID) throws -> Set<String> {
        try SpatiaLiteStore.teamHunts(db, player: player)
    }

    /// The stops covering a check-in's position: from every stop's geofence compiled once for the
    /// definitions (kept in `HuntCache`, as the hunts are), not from an R*Tree query and the
    /// candidates' geofences decoded for each check-in (a tenth of the writer's own time). Near an
    /// edge, where the compiled test cannot certify its answer, and without a token, SpatiaLite
    /// answers as before.
    func stops(covering position: Coordinate, inHunt huntID: String?) throws -> [StopReference] {
        if let index = try geofenceIndex(),
            case .covered(let found) = index.covering(
                latitude: position.latitude, longitude: position.longitude)
        {
            return found.compactMap { i in
                let entry = index.entries[i]
                guard huntID == nil || entry.huntID == huntID else { return nil }
                return StopReference(huntID: entry.huntID, stopID: entry.stopID, name: entry.name)
            }
        }
        return try SpatiaLiteStore.covering(db, position, huntID: huntID)
    }

    /// Every stop's geofence compiled, kept for the definitions token; nil without a token or when
    /// a geofence has no valid binary form.
    func geofenceIndex() throws -> GeofenceIndex? {
        guard let token = try definitionsToken() else { return nil }
        if let kept = huntCache.index(definitions: token) { return kept }
        let index = try SpatiaLiteStore.compiledIndex(db, huntID: nil)
        huntCache.keep(index: index, definitions: token)
        return index
    }

    func nearestStop(to position: Coordinate, inHunt huntID: String?) throws -> NearestStop? {
        try SpatiaLiteStore.nearest(db, position, huntID: huntID)
    }

    func visitedStops(player: PlayerID, hunt huntID: String) throws -> [String: Date] {
        let key = "\(player)|\(huntID)"
        if let known = visited[key] { return known }
        // Each stop's first accepted visit is the stop event scoring wrote for it (`score_events`:
        // written with the check-ins in each transaction, written again after a review or a sync):
        // a row a stop, where the check-ins themselves were all of the player's in the hunt, each
        // with its reviews looked up (a sixth of a server's writer under check-ins, and growing).
        // The check-ins of a stop no longer in the hunt have no event; the rules ask only of its
        // stops.
        var found: [String: Date] = [:]
        try RawStatement(
            db,
            """
            SELECT stop_id, at_epoch FROM score_events
            WHERE player_id = ? AND hunt_id = ? AND kind = 'stop' AND stop_id IS NOT NULL
            """
        ).rows([.integer(player.rawValue), .text(huntID)]) { row in
            guard let stop = row.text(0), let epoch = row.double(1) else { return true }
            let time = Date(timeIntervalSince1970: epoch)
            if found[stop].map({ time < $0 }) ?? true { found[stop] = time }
            return true
        }
        visited[key] = found
        return found
    }

    func answerTries(player: PlayerID, hunt huntID: String, excluding checkIn: Int64?) throws
        -> [String: AnswerTries]
    {
        try SpatiaLiteStore.answerTries(db, player: player, hunt: huntID, excluding: checkIn)
    }

    /// Records an accepted check-in the transaction just inserted.
    func accepted(player: PlayerID, huntID: String, stopID: String, at time: Date) {
        let key = "\(player)|\(huntID)"
        guard var known = visited[key] else { return }
        if known[stopID].map({ time < $0 }) ?? true { known[stopID] = time }
        visited[key] = known
    }

    func neighbourFixes(player: PlayerID, around time: Date, excluding checkIn: Int64?) throws -> [Fix] {
        var fixes: [Fix] = []
        for sql in [Self.lastBefore, Self.firstAfter] {
            let row = try RawStatement(db, sql).first(
                [.integer(player.rawValue), .real(time.timeIntervalSince1970), .integer(checkIn)]
            ) { NeighbourRow($0) }
            if let fix = row?.fix { fixes.append(fix) }
        }
        return fixes
    }

    func photoUses(image: String, pixels: String?, player: PlayerID, excluding checkIn: Int64?) throws
        -> PhotoUses?
    {
        guard
            let first = try Row.fetchOne(
                try db.cachedStatement(sql: TransactionHistory.photoFirstUse), arguments: [image, pixels])
        else { return nil }
        let standing = try Int64.fetchOne(
            try db.cachedStatement(sql: TransactionHistory.photoStandingUse),
            arguments: [image, pixels, player.rawValue, checkIn])
        let owner = PlayerID(first[1] as Int64)
        // Whether the owner has a use that stands (asked only of another player's picture).
        let ownersStanding =
            owner == player
            ? nil
            : try Int64.fetchOne(
                try db.cachedStatement(sql: TransactionHistory.photoStandingUse),
                arguments: [image, pixels, owner.rawValue, nil])
        let ownerStanding = owner == player || ownersStanding != nil
        return PhotoUses.seen(
            first: first[0], owner: owner, ownStanding: standing, ownerStanding: ownerStanding,
            rechecked: checkIn)
    }

    /// A picture's first check-in and its player (?1 the file's SHA-256, ?2 its pixels'): the
    /// least id under each of the two indexes, not every use gathered and sorted (an `OR` of the
    /// two read and sorted them all).
    static let photoFirstUse = """
        SELECT id, player_id FROM checkins WHERE id = (SELECT min(id) FROM (
            SELECT min(id) AS id FROM checkins WHERE image_sha256 = ?1
            UNION ALL SELECT min(id) FROM checkins WHERE pixel_sha256 = ?2))
        """

    /// A player's (?3) earliest use of a picture that still holds it, other than check-in ?4:
    /// only that player's uses are read, through the indexes keyed by picture and player (v38),
    /// however many players sent the picture.
    static let photoStandingUse = """
        SELECT id FROM checkin_state WHERE id IN (
            SELECT id FROM checkins WHERE image_sha256 = ?1 AND player_id = ?3
            UNION ALL SELECT id FROM checkins WHERE pixel_sha256 = ?2 AND player_id = ?3)
        AND id IS NOT ?4 AND \(CheckInStateSQL.holdsItsPhoto()) ORDER BY id LIMIT 1
        """

    func nearCopy(of perceptualHash: UInt64, excluding player: PlayerID, image: String, pixels: String?)
        throws
        -> NearCopy?
    {
        // Committed check-ins from the store's index (read once a process, extended by what
        // others committed since); this transaction's own from the table.
        if committedUpTo == nil {
            committedUpTo = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM checkins") ?? 0
            try perceptual.extend(db, upTo: committedUpTo!)
            ownReadUpTo = committedUpTo!
        }
        let rows = try Row.fetchCursor(
            try db.cachedStatement(
                sql: """
                    SELECT id, phash, player_id, image_sha256, pixel_sha256 FROM checkins
                    WHERE id > ? AND phash IS NOT NULL ORDER BY id
                    """),
            arguments: [ownReadUpTo])
        while let row = try rows.next() {
            own.append((row[0], UInt64(bitPattern: row[1] as Int64), row[2], row[3], row[4]))
            ownReadUpTo = row[0]
        }
        // As `player_id <> ? AND image_sha256 IS NOT ? AND pixel_sha256 IS NOT ?` would choose.
        let others = own.lazy.filter {
            $0.player != player.rawValue && $0.image != image && $0.pixels != pixels
        }
        .map { ($0.id, $0.hash) }
        let committed = perceptual.nearest(
            to: perceptualHash, excluding: player.rawValue, image: PerceptualIndex.key(image),
            pixels: pixels.map(PerceptualIndex.key))
        return NearCopy.nearest(
            to: perceptualHash, among: Array(others) + (committed.map { [($0.checkInID, $0.hash)] } ?? []))
    }

    static let lastBefore = """
        SELECT lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
        WHERE player_id = ?1 AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive()) AND fix_epoch IS NOT NULL AND fix_epoch <= ?2 AND id IS NOT ?3
        ORDER BY fix_epoch DESC LIMIT 1
        """
    static let firstAfter = """
        SELECT lat, lon, accuracy_m, fix_epoch, source, received_at, hunt_id FROM checkin_state
        WHERE player_id = ?1 AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.isLive()) AND fix_epoch IS NOT NULL AND fix_epoch > ?2 AND id IS NOT ?3
        ORDER BY fix_epoch ASC LIMIT 1
        """
}

/// A neighbouring accepted fix as `TransactionHistory.neighbourFixes` reads it.
struct NeighbourRow {
    var lat: Double?
    var lon: Double?
    var accuracyMeters: Double?
    var fixEpoch: Double
    var source: String
    var receivedAt: String?
    var huntID: String?

    /// Columns by position, as `lastBefore` and `firstAfter` select them; nil without a fix time
    /// or a source (which those statements never return).
    init?(_ row: borrowing RawStatement.Columns) {
        guard let fixEpoch = row.double(3), let source = row.text(4) else { return nil }
        (lat, lon, accuracyMeters, self.fixEpoch, self.source, receivedAt, huntID) = (
            row.double(0), row.double(1), row.double(2), fixEpoch, source, row.text(5), row.text(6)
        )
    }

    var fix: Fix? {
        guard let lat, let lon, let position = try? Coordinate(latitude: lat, longitude: lon) else {
            return nil
        }
        return Fix(
            position: position, time: Date(timeIntervalSince1970: fixEpoch), accuracyMeters: accuracyMeters,
            source: FixSource(rawValue: source) ?? .photo, receivedAt: receivedAt.flatMap(RFC3339.parse),
            huntID: huntID)
    }
}

/// Every committed check-in's perceptual hash, in memory (8 bytes a hash and 16 for its ids:
/// a million photos are 24 MB, scanned in about a millisecond), so that a near-copy question
/// is not a scan of the table. Rows are added up to an id the asking transaction saw
/// committed, never one it wrote itself (a rolled-back row's id is used again).
final class PerceptualIndex: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [Int64] = []
    private var players: [Int64] = []
    private var hashes: [UInt64] = []
    /// The first 8 bytes of each row's image-data and pixel hashes (0: none), to leave out
    /// exact copies of the picture asked about.
    private var images: [UInt64] = []
    private var pixels: [UInt64] = []
    private var loadedUpTo: Int64 = 0

    /// The first 8 bytes of a hex SHA-256.
    static func key(_ hex: String) -> UInt64 { UInt64(hex.prefix(16), radix: 16) ?? 0 }

    /// Adds the committed rows after the last one loaded, up to `last`.
    func extend(_ db: Database, upTo last: Int64) throws {
        lock.lock()
        defer { lock.unlock() }
        guard last > loadedUpTo else { return }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, player_id, phash, image_sha256, pixel_sha256 FROM checkins
                WHERE id > ? AND id <= ? AND phash IS NOT NULL ORDER BY id
                """,
            arguments: [loadedUpTo, last])
        while let row = try rows.next() {
            ids.append(row[0])
            players.append(row[1])
            hashes.append(UInt64(bitPattern: row[2] as Int64))
            images.append((row[3] as String?).map(Self.key) ?? 0)
            pixels.append((row[4] as String?).map(Self.key) ?? 0)
        }
        loadedUpTo = last
    }

    /// The nearest hash within `NearCopy.maxBits` of another player's, ties to the earliest.
    func nearest(to hash: UInt64, excluding player: Int64, image: UInt64, pixels: UInt64?)
        -> (checkInID: Int64, hash: UInt64)?
    {
        lock.lock()
        defer { lock.unlock() }
        var best: (index: Int, bits: Int)?
        // The distance first, over the hashes alone: a league's other pictures are almost all far,
        // and reading the players' and pictures' columns for each made the scan several times longer.
        hashes.withUnsafeBufferPointer { all in
            for index in all.indices {
                let bits = (all[index] ^ hash).nonzeroBitCount
                guard bits <= NearCopy.maxBits, best.map({ bits < $0.bits }) ?? true,
                    players[index] != player, images[index] != image,
                    pixels == nil || self.pixels[index] != pixels
                else { continue }
                best = (index, bits)
            }
        }
        return best.map { (ids[$0.index], hashes[$0.index]) }
    }
}

/// Hunts as the rules read them, and the scoring catalog (hunts' points and badges), decoded once
/// for a token of the definitions (`sync_state`'s `definitions`, new at every change of them): a
/// server's groups read each hunt, stops and all, in every transaction (a tenth of its writer under
/// check-ins), and the catalog once a group.
final class HuntCache: @unchecked Sendable {
    private let lock = NSLock()
    private var token: String?
    private var hunts: [String: Hunt?] = [:]
    private var catalog: (hunts: [ScoringHunt], badges: [Badge])?
    /// Every stop's geofence compiled (`.some(nil)`: a geofence without a valid binary form).
    private var index: GeofenceIndex??
    /// The scoring catalog laid out for scoring's folds.
    private var layout: Scoring.Layout?
    /// Every hunt as `SpatiaLiteStore.hunts()` answers.
    private var stored: [StoredHunt]?

    /// Forgets what other definitions kept (the lock held).
    private func adopt(_ definitions: String) {
        if token != definitions {
            (token, hunts, catalog, index, layout, stored) = (definitions, [:], nil, nil, nil, nil)
        }
    }

    /// Every hunt kept for `definitions`, or nil.
    func stored(definitions: String) -> [StoredHunt]? {
        lock.lock()
        defer { lock.unlock() }
        return token == definitions ? stored : nil
    }

    /// Keeps every hunt as read under `definitions`.
    func keep(stored: [StoredHunt], definitions: String) {
        lock.lock()
        defer { lock.unlock() }
        adopt(definitions)
        self.stored = stored
    }

    /// The scoring layout kept for `definitions`, or nil.
    func layout(definitions: String) -> Scoring.Layout? {
        lock.lock()
        defer { lock.unlock() }
        return token == definitions ? layout : nil
    }

    /// Keeps the scoring layout made under `definitions`.
    func keep(layout: Scoring.Layout, definitions: String) {
        lock.lock()
        defer { lock.unlock() }
        adopt(definitions)
        self.layout = layout
    }

    /// The geofences compiled under `definitions` (`.some(nil)`: they cannot be), or nil when none are kept.
    func index(definitions: String) -> GeofenceIndex?? {
        lock.lock()
        defer { lock.unlock() }
        return token == definitions ? index : nil
    }

    /// Keeps the geofences compiled under `definitions`.
    func keep(index: GeofenceIndex?, definitions: String) {
        lock.lock()
        defer { lock.unlock() }
        adopt(definitions)
        self.index = .some(index)
    }

    /// The scoring catalog kept for `definitions`, or nil.
    func catalog(definitions: String) -> (hunts: [ScoringHunt], badges: [Badge])? {
        lock.lock()
        defer { lock.unlock() }
        return token == definitions ? catalog : nil
    }

    /// Keeps the scoring catalog read under `definitions` (forgetting what other definitions kept).
    func keep(catalog: (hunts: [ScoringHunt], badges: [Badge]), definitions: String) {
        lock.lock()
        defer { lock.unlock() }
        adopt(definitions)
        self.catalog = catalog
    }

    /// The hunt kept for `definitions` (`.some(nil)`: no such hunt), or nil when none is kept.
    func hunt(id: String, definitions: String) -> Hunt?? {
        lock.lock()
        defer { lock.unlock() }
        guard token == definitions else { return nil }
        return hunts[id]
    }

    /// Keeps a hunt decoded under `definitions` (forgetting those of other definitions).
    func keep(_ hunt: Hunt?, id: String, definitions: String) {
        lock.lock()
        defer { lock.unlock() }
        adopt(definitions)
        hunts[id] = .some(hunt)
    }
}
