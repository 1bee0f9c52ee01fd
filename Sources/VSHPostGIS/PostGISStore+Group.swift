import Foundation
internal import Logging
internal import PostgresNIO
import VSHCore

/// What a group's transaction reads at once for all of its check-ins, after taking its locks:
/// the answers `CheckInFacts.gather` will ask for, so that a group of device fixes costs a few
/// statements whatever its size instead of four round trips a check-in.
///
/// Only answers that cannot change before the question is asked are read ahead: the stops
/// covering each position (hunts do not change while the group holds the catalogue lock), and
/// a player's visits and neighbouring fixes for the player's first check-in of the group (their
/// later ones, and every question about photos, which other players' check-ins in the group may
/// change, are asked when they come, after the check-ins before them are written).
struct GroupAnswers {
    /// Answers for the request at each index.
    var byRequest: [Int: [HistoryQuestion: HistoryAnswer]] = [:]
    /// The answers kept under retry keys: `"player|key"`.
    var retries: [String: IdempotentAnswer] = [:]
    /// Each player's score events as the group found them, in their order (scoring resumes from
    /// them; the stop events are the players' first visits).
    var events: [PlayerID: [ScoreEvent]] = [:]
    /// Each player's latest accepted or pending check-in by fix time before the group (`GroupLatestSQL`).
    var latest: [PlayerID: (id: Int64, epoch: Double)] = [:]

    static func slot(_ player: PlayerID, _ key: String) -> String { "\(player.rawValue)|\(key)" }
}

extension PostGISStore {
    /// Takes the group's locks (the catalogue's shared, then `keys` in ascending order) and
    /// reads the definitions' generation and the players' names, in one statement
    /// (`vsh_open_group`: its statements run one after the other, each seeing what committed
    /// before it, so the reads come after the locks).
    func openGroup(_ db: PostgresConnection, keys: Set<Int64>, players: Set<PlayerID>) async throws
        -> (generation: String, names: [PlayerID: String])
    {
        var generation = ""
        var names: [PlayerID: String] = [:]
        for row in try await db.rows(
            Prepared<OpenGroupSQL>(Lock.catalogue, keys.sorted(), players.map(\.rawValue)), logger: logger)
        {
            let (id, text) = try row.decode((Int64?, String).self)
            if let id { names[PlayerID(id)] = text } else { generation = text }
        }
        return (generation, names)
    }

    /// Reads ahead what the group's check-ins will ask (see `GroupAnswers`).
    func readAhead(_ db: PostgresConnection, _ requests: [CheckInRequest], catalogue: Catalogue)
        async throws -> GroupAnswers
    {
        var answers = GroupAnswers()
        // The first request of each player: the only ones whose player-keyed answers are read ahead.
        var seen = Set<PlayerID>()
        let firsts = requests.indices.filter { seen.insert(requests[$0].submission.player).inserted }

        // Covering stops of every position, in one statement.
        let located = requests.indices.filter { requests[$0].submission.reportedPosition != nil }
        var covering: [Int: [StopReference]] = [:]
        if !located.isEmpty {
            let positions = located.map { requests[$0].submission.reportedPosition! }
            for row in try await db.rows(
                Prepared<GroupCoveringSQL>(
                    positions.map(\.longitude), positions.map(\.latitude),
                    located.map { requests[$0].submission.huntID ?? "" }),
                logger: logger)
            {
                let (ordinal, hunt, stop, name) = try row.decode((Int64, String, String, String).self)
                covering[located[Int(ordinal) - 1], default: []].append(
                    StopReference(huntID: hunt, stopID: stop, name: name))
            }
            for index in located {
                let submission = requests[index].submission
                answers.byRequest[index, default: [:]][
                    .covering(submission.reportedPosition!, huntID: submission.huntID)] = .covering(
                        covering[index] ?? [])
            }
        }

        // The hunt each first request will be decided in, where it is known without the nearest
        // stop: the one named, else the first covering stop's.
        var huntOf: [Int: String] = [:]
        for index in firsts {
            let submission = requests[index].submission
            if let named = submission.huntID {
                if catalogue.hunts[named] != nil { huntOf[index] = named }
            } else if let first = covering[index]?.first {
                huntOf[index] = first.huntID
            }
        }

        // The players' score events and latest live check-ins, in two statements: scoring goes on
        // from them, and each stop's first accepted visit is its stop event (written with the
        // check-ins in each transaction, again after a review or a sync; a stop no longer in its
        // hunt has none, and the rules ask only of a hunt's stops), as on SpatiaLite.
        let players = firsts.map { requests[$0].submission.player.rawValue }
        for player in players { answers.events[PlayerID(player)] = [] }
        for row in try await db.rows(Prepared<GroupEventsSQL>(players), logger: logger) {
            let (player, kind, hunt, stop, badge, points, at, checkIn) = try row.decode(
                (Int64, String, String, String?, String?, Int, Double, Int64).self)
            guard let kind = ScoreEvent.Kind(rawValue: kind) else {
                // Not an event this vsh knows: scoring starts again from the check-ins.
                answers.events[PlayerID(player)] = nil
                continue
            }
            answers.events[PlayerID(player)]?.append(
                ScoreEvent(
                    kind: kind, huntID: hunt, stopID: stop, badgeID: badge, points: points,
                    at: Date(timeIntervalSince1970: at), checkInID: checkIn))
        }
        for row in try await db.rows(Prepared<GroupLatestSQL>(players), logger: logger) {
            let (player, id, epoch) = try row.decode((Int64, Int64, Double).self)
            answers.latest[PlayerID(player)] = (id, epoch)
        }
        for (index, hunt) in huntOf {
            let player = requests[index].submission.player
            guard let events = answers.events[player] else { continue }
            var visits: [String: Date] = [:]
            for event in events where event.kind == .stop && event.huntID == hunt {
                guard let stop = event.stopID else { continue }
                if visits[stop].map({ event.at < $0 }) ?? true { visits[stop] = event.at }
            }
            answers.byRequest[index, default: [:]][.visitedStops(player, huntID: hunt)] = .visitedStops(
                visits)
        }

        // Neighbouring fixes: the fix time the rules will ask about, in the hunt they will see.
        var asked: [(index: Int, time: Date)] = []
        for index in firsts {
            let submission = requests[index].submission
            if let time = submission.fixTime(in: huntOf[index].flatMap { catalogue.hunts[$0] }) {
                asked.append((index, time))
            }
        }
        if !asked.isEmpty {
            var fixes: [Int: [Fix]] = [:]
            for row in try await db.rows(
                Prepared<GroupNeighboursSQL>(
                    asked.map { requests[$0.index].submission.player.rawValue },
                    asked.map(\.time.timeIntervalSince1970),
                    asked.map { requests[$0.index].submission.recheckOf ?? 0 }),
                logger: logger)
            {
                let (ordinal, lat, lon, accuracy, fixEpoch, source, received, hunt) = try row.decode(
                    (Int64, Double?, Double?, Double?, Double, String, String, String?).self)
                let index = asked[Int(ordinal) - 1].index
                fixes[index, default: []] += Self.fix(lat, lon, accuracy, fixEpoch, source, received, hunt)
            }
            for (index, time) in asked {
                let submission = requests[index].submission
                answers.byRequest[index, default: [:]][
                    .neighbourFixes(submission.player, around: time, excluding: submission.recheckOf)] =
                    .neighbourFixes(fixes[index] ?? [])
            }
        }

        // Answers kept under the group's retry keys (the players' locks keep them as read).
        let claims = requests.compactMap { request in
            request.idempotency.map { (request.submission.player, $0.key) }
        }
        if !claims.isEmpty { answers.retries = try await keptAnswers(db, claims) }
        return answers
    }

    /// A recorded fix from its columns (none when it has no position).
    static func fix(
        _ lat: Double?, _ lon: Double?, _ accuracy: Double?, _ epoch: Double, _ source: String,
        _ received: String, _ hunt: String?
    ) -> [Fix] {
        guard let lat, let lon, let position = try? Coordinate(latitude: lat, longitude: lon) else {
            return []
        }
        return [
            Fix(
                position: position, time: Date(timeIntervalSince1970: epoch), accuracyMeters: accuracy,
                source: FixSource(rawValue: source) ?? .photo, receivedAt: RFC3339.parse(received),
                huntID: hunt)
        ]
    }

    /// Inserts decided check-ins in one statement, in order; their ids and the teams they counted
    /// for, in the same order.
    func insertAll(
        _ db: PostgresConnection, _ rows: [(submission: Submission, decision: Decision, photoFile: String?)]
    )
        async throws -> [(id: Int64, team: Int64?)]
    {
        guard !rows.isEmpty else { return [] }
        if rows.count == 1 {
            return [
                try await insert(
                    db, rows[0].submission, decision: rows[0].decision, photoFile: rows[0].photoFile)
            ]
        }
        var columns = InsertColumns()
        for row in rows { columns.append(row.submission, row.decision, row.photoFile) }
        var ids: [(id: Int64, team: Int64?)] = []
        for row in try await db.rows(Prepared<GroupInsertSQL>(values: columns.bindings), logger: logger) {
            ids.append(try row.decode((Int64, Int64?).self))
        }
        guard ids.count == rows.count else {
            throw PostGISError(kind: .other, message: "the check-ins were not recorded", location: location)
        }
        // The identity's values are drawn row by row in the order the rows are inserted, which
        // is the arrays' order: ascending ids are the rows in order.
        return ids.sorted { $0.id < $1.id }
    }
}

/// A group's check-ins as column arrays (`GroupInsertSQL`), absent values as stand-ins that the
/// statement turns back into NULLs: NaN for a number, "" for text (no column that may be absent
/// holds an empty text: ids, hashes, keys and times are never empty), a flag for the hash.
struct InsertColumns {
    var player: [Int64] = [], received: [String] = [], source: [String] = [], photoFile: [String] = []
    var photoSHA: [String] = [], imageSHA: [String] = [], lat: [Double] = [], lon: [Double] = []
    var accuracy: [Double] = [], fixTime: [String] = [], fixEpoch: [Double] = [], hunt: [String] = []
    var stop: [String] = [], verdict: [String] = [], points: [Int64] = [], rules: [String] = []
    var pixelSHA: [String] = [], phash: [Int64] = [], hasPhash: [Bool] = [], clock: [Double] = []
    var answer: [Int64] = []

    static let none = ""

    mutating func append(_ submission: Submission, _ decision: Decision, _ file: String?) {
        let position = submission.reportedPosition
        let time = decision.fix?.time ?? submission.fixTime(in: decision.hunt)
        player.append(submission.player.rawValue)
        received.append(RFC3339.format(submission.receivedAt))
        source.append(submission.source.rawValue)
        photoFile.append(file ?? Self.none)
        photoSHA.append(submission.photo?.fileSHA256 ?? Self.none)
        imageSHA.append(submission.photo?.imageSHA256 ?? Self.none)
        lat.append(position?.latitude ?? .nan)
        lon.append(position?.longitude ?? .nan)
        accuracy.append(submission.accuracyMeters ?? .nan)
        fixTime.append(time.map(RFC3339.format) ?? Self.none)
        fixEpoch.append(time?.timeIntervalSince1970 ?? .nan)
        hunt.append(decision.hunt?.id ?? Self.none)
        stop.append(decision.stop?.id ?? Self.none)
        verdict.append(decision.verdict.rawValue)
        points.append(Int64(decision.points))
        rules.append(RuleResult.compactText(decision.rules))
        pixelSHA.append(submission.photo?.pixelSHA256 ?? Self.none)
        let hash = submission.photo?.perceptualHash
        phash.append(hash.map { Int64(bitPattern: $0) } ?? 0)
        hasPhash.append(hash != nil)
        clock.append(submission.clockTime.timeIntervalSince1970)
        answer.append(decision.answerRight.map { $0 ? 1 : 0 } ?? -1)
    }

    var bindings: [any PostgresThrowingDynamicTypeEncodable] {
        [
            player, received, source, photoFile, photoSHA, imageSHA, lat, lon, accuracy, fixTime, fixEpoch,
            hunt, stop, verdict, points, rules, pixelSHA, phash, hasPhash, clock, answer,
        ]
    }
}

extension PostGISStore {
    /// Scores a group's new accepted check-ins (written already) through the core's `ScoreLedger`,
    /// one ledger a player, going on from the events the group read (`GroupAnswers.events`) or
    /// rescoring. The ledgers' questions about days in a row are answered together, one statement
    /// a round; the new events of everyone who went on are written in one statement, their totals
    /// in another. Returns each player's events written now.
    func scoreGroup(
        _ db: PostgresConnection, added: [PlayerID: [ScoredCheckIn]], teams: [Int64: Int64],
        ahead: GroupAnswers,
        catalog: (hunts: [ScoringHunt], badges: [Badge])
    ) async throws -> [PlayerID: [ScoreEvent]] {
        // One layout of the catalog for every ledger of the group.
        let layout = Scoring.Layout(hunts: catalog.hunts, badges: catalog.badges)
        var ledgers = added.sorted(by: { $0.key.rawValue < $1.key.rawValue }).map { player, checkIns in
            ScoreLedger(
                player: player, added: checkIns, stored: ahead.events[player],
                latestEarlier: ahead.latest[player].map { (epoch: $0.epoch, id: $0.id) }, layout: layout)
        }
        while true {
            let asking = ledgers.indices.compactMap { i -> (Int, LocalDaysQuestion)? in
                if case .ask(let question) = ledgers[i].step { return (i, question) }
                return nil
            }
            if asking.isEmpty { break }
            let answers = try await checkIns(db, clockWithin: asking.map(\.1))
            for ((i, _), found) in zip(asking, answers) { ledgers[i].answer(found) }
        }
        var written: [PlayerID: [ScoreEvent]] = [:]
        var again: [PlayerID] = []
        var rows: [(Int64, ScoreEvent)] = []
        var totals:
            [(player: Int64, points: Int64, hunts: Int64, stops: Int64, badges: Int64, reached: Double)] = []
        var allEvents: [PlayerID: [ScoreEvent]] = [:]
        for ledger in ledgers {
            switch ledger.step {
            case .done(let new, let all):
                written[ledger.player] = new
                // No new event (a stop visited again): the kept totals are the stored events' sums
                // already, and are not written again (two statements' rows less a group).
                guard !new.isEmpty else { continue }
                rows += new.map { (ledger.player.rawValue, $0) }
                if let total = Self.totals(ledger.player, all) { totals.append(total) }
                allEvents[ledger.player] = all
            case .rescore, .ask:
                again.append(ledger.player)
            }
        }
        if !rows.isEmpty { try await insertEvents(db, rows) }
        if !totals.isEmpty { try await upsertTotals(db, totals) }
        try await replaceHuntTotals(db, allEvents)
        if !again.isEmpty {
            for (player, events) in try await rescore(db, players: again, catalog: catalog, teams: false) {
                written[player] = events
            }
        }
        // The teams the new check-ins counted for (from their `INSERT`): a group only adds
        // check-ins, so no other team's changed, whichever of its players were rescored.
        try await rescoreTeams(
            db, added.values.flatMap { $0.compactMap { teams[$0.id] } }, catalog: catalog)
        return written
    }

    /// For each ledger's question, the player's accepted check-ins whose clock falls in its
    /// window (other than the one it is for), in one statement.
    func checkIns(_ db: PostgresConnection, clockWithin questions: [LocalDaysQuestion]) async throws
        -> [[ScoredCheckIn]]
    {
        var candidates: [Int: [ScoredCheckIn]] = [:]
        for row in try await db.rows(
            Prepared<GroupDayCandidatesSQL>(
                questions.map(\.player.rawValue), questions.map(\.excluded),
                questions.map(\.window.lowerBound),
                questions.map(\.window.upperBound)), logger: logger)
        {
            let (ordinal, id, hunt, stop, epoch, clock) = try row.decode(
                (Int64, Int64, String, String, Double, Double?).self)
            candidates[Int(ordinal) - 1, default: []].append(
                ScoredCheckIn(
                    id: id, huntID: hunt, stopID: stop, time: Date(timeIntervalSince1970: epoch),
                    clock: clock.map(Date.init(timeIntervalSince1970:))))
        }
        return questions.indices.map { candidates[$0] ?? [] }
    }
}
