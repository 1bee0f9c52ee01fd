import Foundation
internal import Logging
internal import PostgresNIO
public import VSHCore
import VSHHost
import VSHSQL

extension PostGISStore {
    /// Decides and records one submission in one transaction (locks, facts, rules, insert, rescore).
    public func record(_ submission: Submission, photoFile: String?, decide: @escaping CheckInDecider)
        async throws -> RecordedCheckIn
    {
        let outcomes = try await recordGroup(
            [CheckInRequest(submission: submission, photoFile: photoFile)], decide: decide)
        guard case .recorded(let recorded, _) = outcomes.first else {
            throw PostGISError(kind: .other, message: "the check-in was not recorded", location: location)
        }
        return recorded
    }

    /// Decides and records many in one transaction: one durable commit.
    public func recordBatch(
        _ submissions: [(submission: Submission, photoFile: String?)], decide: @escaping CheckInDecider
    ) async throws -> [RecordedCheckIn] {
        try await recordGroup(
            submissions.map { CheckInRequest(submission: $0.submission, photoFile: $0.photoFile) },
            decide: decide
        ).compactMap {
            if case .recorded(let recorded, _) = $0 { return recorded }
            return nil
        }
    }

    /// Decides and records a group in one transaction: one durable commit. The transaction first
    /// locks every player and photo of the group (`Lock`), so what the rules read cannot change
    /// before the commit, in this process or another; retry keys are looked up and kept inside it.
    ///
    /// A group costs a fixed number of statements, not a few per check-in: the locks, names and
    /// generation in one (`openGroup`), what the check-ins will ask read ahead for all of them
    /// (`readAhead`), the decided check-ins inserted together, one rescore, one statement for the
    /// retry keys. A question not read ahead (a photo's uses, a player's second check-in in the
    /// group) is asked when it comes, after the check-ins decided before it are written, so every
    /// answer is what the one-at-a-time order would give.
    public func recordGroup(_ requests: [CheckInRequest], decide: @escaping CheckInDecider) async throws
        -> [CheckInOutcome]
    {
        var lockKeys = Set(requests.map { Lock.player($0.submission.player) })
        for request in requests {
            if let photo = request.submission.photo {
                lockKeys.insert(Lock.image(photo.imageSHA256))
                if let pixels = photo.pixelSHA256 { lockKeys.insert(Lock.image(pixels)) }
            }
        }
        let (logger, keys) = (self.logger, lockKeys)
        return try await transaction { db in
            let opened = try await self.openGroup(
                db, keys: keys, players: Set(requests.map(\.submission.player)))
            let catalogue = try await self.catalogue(db, generation: opened.generation)
            let names = opened.names
            let ahead = try await self.readAhead(db, requests, catalogue: catalogue)
            var outcomes: [CheckInOutcome] = []
            // Decided, not yet written: their outcomes' indexes and rows.
            var unwritten:
                [(at: Int, row: (submission: Submission, decision: Decision, photoFile: String?))] = []
            var recordedAt: [Int] = []
            var claimed: [String: Int] = [:]
            var repeats: [(at: Int, of: Int)] = []
            // The team each new check-in counted for (none: absent).
            var teams: [Int64: Int64] = [:]
            func write() async throws {
                let ids = try await self.insertAll(db, unwritten.map(\.row))
                for (pending, (id, team)) in zip(unwritten, ids) {
                    teams[id] = team
                    guard case .recorded(var recorded, let answer) = outcomes[pending.at] else { continue }
                    recorded.id = id
                    outcomes[pending.at] = .recorded(recorded, answer: answer)
                }
                unwritten.removeAll()
            }
            for (index, request) in requests.enumerated() {
                let submission = request.submission
                if let claim = request.idempotency {
                    if let earlier = ahead.retries[GroupAnswers.slot(submission.player, claim.key)] {
                        outcomes.append(.repeated(earlier))
                        continue
                    }
                    let slot = GroupAnswers.slot(submission.player, claim.key)
                    if let first = claimed[slot] {
                        repeats.append((outcomes.count, first))
                        outcomes.append(
                            .repeated(IdempotentAnswer(checkInID: 0, fingerprint: "", answer: "")))
                        continue
                    }
                    claimed[slot] = outcomes.count
                }
                guard let name = names[submission.player] else {
                    throw LeagueError.unknownPlayerID(submission.player)
                }
                let known = ahead.byRequest[index] ?? [:]
                let facts = try await CheckInFacts.gather(for: submission) { question in
                    if let answer = known[question] { return answer }
                    // Only a question about check-ins needs the ones decided before it written
                    // first; one about the definitions (fixed while the group holds the
                    // catalogue's lock) does not, so a group of check-ins that name their hunt
                    // is still inserted in one statement, not one a check-in.
                    if !unwritten.isEmpty, question.readsCheckIns { try await write() }
                    return try await self.answer(question, db, catalogue: catalogue)
                }
                let decision = decide(submission, facts)
                recordedAt.append(outcomes.count)
                unwritten.append((outcomes.count, (submission, decision, request.photoFile)))
                outcomes.append(
                    .recorded(
                        RecordedCheckIn(
                            id: 0, playerID: submission.player, player: name,
                            receivedAt: submission.receivedAt, source: submission.source, decision: decision,
                            state: CheckInState(decision.verdict), photoFile: request.photoFile),
                        answer: nil))
            }
            try await write()
            // The accepted check-ins as scoring sees them (the columns the rescore reads).
            var added: [PlayerID: [ScoredCheckIn]] = [:]
            for i in recordedAt {
                guard case .recorded(let recorded, _) = outcomes[i], recorded.decision.verdict == .accepted
                else { continue }
                let submission = requests[i].submission
                let decision = recorded.decision
                guard let hunt = decision.hunt?.id, let stop = decision.stop?.id,
                    let time = decision.fix?.time ?? submission.fixTime(in: decision.hunt)
                else { continue }
                added[submission.player, default: []].append(
                    ScoredCheckIn(
                        id: recorded.id, huntID: hunt, stopID: stop, time: time, clock: submission.clockTime,
                        answered: decision.answerRight == true))
            }
            var awards: [Int64: [ScoreEvent]] = [:]
            for (_, events) in try await self.scoreGroup(
                db, added: added, teams: teams, ahead: ahead, catalog: catalogue.scoring)
            {
                for event in events where event.kind.isAward {
                    awards[event.checkInID, default: []].append(event)
                }
            }
            // Answers are made once the awards are known, and kept under their keys.
            var kept:
                (players: [Int64], keys: [String], fingerprints: [String], ids: [Int64], answers: [String]) =
                    ([], [], [], [], [])
            for i in recordedAt {
                guard case .recorded(var recorded, _) = outcomes[i] else { continue }
                recorded.awards = awards[recorded.id] ?? []
                var answer: String?
                let request = requests[i]
                if let claim = request.idempotency {
                    let text = claim.answer(recorded)
                    answer = text
                    kept.players.append(request.submission.player.rawValue)
                    kept.keys.append(claim.key)
                    kept.fingerprints.append(claim.fingerprint)
                    kept.ids.append(recorded.id)
                    kept.answers.append(text)
                }
                outcomes[i] = .recorded(recorded, answer: answer)
            }
            if !kept.ids.isEmpty {
                try await db.query(
                    """
                    INSERT INTO idempotency_keys(player_id, key, fingerprint, checkin_id, answer)
                    SELECT * FROM unnest(\(kept.players)::int8[], \(kept.keys)::text[], \(kept.fingerprints)::text[],
                        \(kept.ids)::int8[], \(kept.answers)::text[])
                    """, logger: logger)
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

    /// The facts the rules would see for `submission` now, read outside any check-in's transaction.
    public func facts(for submission: Submission) async throws -> CheckInFacts {
        try await read { db in
            let catalogue = try await self.catalogue(db)
            return try await CheckInFacts.gather(for: submission) { question in
                try await self.answer(question, db, catalogue: catalogue)
            }
        }
    }

    /// One question of `CheckInFacts.gather`, answered inside the check-in's transaction.
    func answer(
        _ question: HistoryQuestion, _ db: PostgresConnection,
        catalogue: Catalogue
    ) async throws -> HistoryAnswer {
        switch question {
        case .hunt(let id): return .hunt(catalogue.hunts[id])
        case .huntIDs: return .huntIDs(catalogue.order)
        case .joinedHunts(let player):
            return .joinedHunts(try await joinedHunts(db, player: player))
        case .teamHunts(let player):
            return .teamHunts(try await teamHunts(db, player: player))
        case .covering(let position, let huntID):
            return .covering(try await covering(db, position, huntID: huntID))
        case .nearest(let position, let huntID):
            return .nearest(try await nearest(db, position, huntID: huntID))
        case .visitedStops(let player, let huntID):
            var found: [String: Date] = [:]
            for row in try await db.rows(Prepared<VisitedSQL>(player.rawValue, huntID), logger: logger) {
                let (stop, first) = try row.decode((String, Double?).self)
                found[stop] = Date(timeIntervalSince1970: first ?? 0)
            }
            return .visitedStops(found)
        case .answerTries(let player, let huntID, let excluded):
            var found: [String: AnswerTries] = [:]
            for row in try await db.query(
                """
                SELECT c.stop_id, count(*) FILTER (WHERE c.answer_right = 0),
                    bool_or(c.answer_right = 1 AND s.state IN ('accepted', 'pending'))
                FROM checkins c JOIN checkin_state s ON s.id = c.id
                WHERE c.player_id = \(player.rawValue) AND c.hunt_id = \(huntID) AND c.stop_id IS NOT NULL
                    AND c.answer_right IS NOT NULL AND c.id <> \(excluded ?? 0)
                GROUP BY c.stop_id
                """, logger: logger
            ).collect() {
                let (stop, wrong, right) = try row.decode((String, Int64, Bool).self)
                found[stop] = AnswerTries(wrong: Int(wrong), right: right)
            }
            return .answerTries(found)
        case .neighbourFixes(let player, let time, let excluded):
            let epoch = time.timeIntervalSince1970
            var fixes: [Fix] = []
            // The fix just before and the one just after, in one statement.
            let rows = try await db.rows(
                Prepared<NeighboursSQL>(player.rawValue, epoch, excluded ?? 0), logger: logger)
            for row in rows {
                let (lat, lon, accuracy, fixEpoch, source, received, hunt) = try row.decode(
                    (Double?, Double?, Double?, Double, String, String, String?).self)
                fixes += Self.fix(lat, lon, accuracy, fixEpoch, source, received, hunt)
            }
            return .neighbourFixes(fixes)
        case .photoUses(let image, let pixels, let player, let excluded):
            guard
                let first = try await db.rows(Prepared<PhotoFirstUseSQL>(image, pixels), logger: logger)
                    .first?.decode((Int64, Int64).self)
            else { return .photoUses(nil) }
            func standingUse(of player: Int64, other: Int64) async throws -> Int64? {
                try await db.rows(Prepared<PhotoStandingUseSQL>(image, pixels, player, other), logger: logger)
                    .first?.decode(Int64.self)
            }
            let standing = try await standingUse(of: player.rawValue, other: excluded ?? 0)
            // Whether the owner has a use that stands (asked only of another player's picture).
            var ownerStanding = first.1 == player.rawValue
            if !ownerStanding { ownerStanding = try await standingUse(of: first.1, other: 0) != nil }
            return .photoUses(
                PhotoUses.seen(
                    first: first.0, owner: PlayerID(first.1), ownStanding: standing,
                    ownerStanding: ownerStanding,
                    rechecked: excluded))
        case .nearCopy(let hash, let player, let image, let pixels):
            let near = NearCopySQL.near(hash)
            let row = try await db.rows(
                Prepared<NearCopySQL>(
                    Int64(bitPattern: hash), near[0], near[1], near[2], near[3], player.rawValue, image,
                    pixels),
                logger: logger
            ).first?.decode((Int64, Int64).self)
            return .nearCopy(row.map { NearCopy(checkInID: $0.0, bits: Int($0.1)) })
        }
    }

    /// The answer kept under a player's retry key. Lookups that arrive together share one
    /// statement (`BatchedLookups`), as session lookups do.
    public func idempotentAnswer(player: PlayerID, key: String) async throws -> IdempotentAnswer? {
        let slot = GroupAnswers.slot(player, key)
        guard pinned == nil else {
            return try await read { db in try await self.keptAnswers(db, [(player, key)])[slot] }
        }
        return try await retryLookups.find(slot) { slots in
            let claims = slots.compactMap { slot -> (PlayerID, String)? in
                // "player|key": the player is digits, the key anything after the first bar.
                guard let bar = slot.firstIndex(of: "|"), let player = Int64(slot[..<bar]) else { return nil }
                return (PlayerID(player), String(slot[slot.index(after: bar)...]))
            }
            return try await self.read { db in try await self.keptAnswers(db, claims) }
        }
    }

    /// The answers kept under these retry keys, by `GroupAnswers.slot` (one statement).
    func keptAnswers(_ db: PostgresConnection, _ claims: [(player: PlayerID, key: String)]) async throws
        -> [String: IdempotentAnswer]
    {
        var found: [String: IdempotentAnswer] = [:]
        for row in try await db.rows(
            Prepared<GroupRetriesSQL>(claims.map(\.player.rawValue), claims.map(\.key)), logger: logger)
        {
            let (player, key, id, fingerprint, answer) = try row.decode(
                (Int64, String, Int64, String, String).self)
            found[GroupAnswers.slot(PlayerID(player), key)] = IdempotentAnswer(
                checkInID: id, fingerprint: fingerprint, answer: answer)
        }
        return found
    }

    /// The stops of a hunt the player holds an accepted check-in at.
    public func visitedStops(player: PlayerID, hunt huntID: String) async throws -> Set<String> {
        try await read { db in
            Set(
                try await db.query(
                    """
                    SELECT DISTINCT stop_id FROM checkin_state
                    WHERE player_id = \(player.rawValue) AND hunt_id = \(huntID) AND \(unescaped: CheckInStateSQL.canCount())
                        AND \(unescaped: CheckInStateSQL.counts()) AND stop_id IS NOT NULL
                    """, logger: self.logger
                ).collect().map { try $0.decode(String.self) })
        }
    }

    func insert(
        _ db: PostgresConnection, _ submission: Submission, decision: Decision, photoFile: String?,
        overturns: Int64? = nil
    ) async throws -> (id: Int64, team: Int64?) {
        let position = submission.reportedPosition
        let fixTime = decision.fix?.time ?? submission.fixTime(in: decision.hunt)
        let rules = RuleResult.compactText(decision.rules)
        let rows = try await db.rows(
            Prepared<InsertCheckInSQL>(
                submission.player.rawValue, RFC3339.format(submission.receivedAt), submission.source.rawValue,
                photoFile, submission.photo?.fileSHA256, submission.photo?.imageSHA256, position?.latitude,
                position?.longitude, submission.accuracyMeters, fixTime.map(RFC3339.format),
                fixTime?.timeIntervalSince1970, decision.hunt?.id, decision.stop?.id,
                decision.verdict.rawValue,
                Int64(decision.points), rules, submission.photo?.pixelSHA256,
                submission.photo?.perceptualHash.map { Int64(bitPattern: $0) },
                submission.clockTime.timeIntervalSince1970, overturns,
                decision.answerRight.map { Int64($0 ? 1 : 0) }),
            logger: logger)
        guard let (id, team) = try rows.first?.decode((Int64, Int64?).self) else {
            throw PostGISError(kind: .other, message: "the check-in was not recorded", location: location)
        }
        return (id, team)
    }

    /// The display names of these players (an unknown id is absent), in one statement.
    func playerNames(_ db: PostgresConnection, _ ids: Set<PlayerID>) async throws -> [PlayerID: String] {
        var names: [PlayerID: String] = [:]
        for row in try await db.query(
            "SELECT id, name FROM players WHERE id = ANY(\(ids.map(\.rawValue))::int8[])", logger: logger
        ).collect() {
            let (id, name) = try row.decode((Int64, String).self)
            names[PlayerID(id)] = name
        }
        return names
    }
}
