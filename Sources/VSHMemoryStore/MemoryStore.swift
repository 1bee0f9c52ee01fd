public import Foundation
public import VSHCore
import VSHHost
import VSHGeodesy
import VSHConfusables

/// Every store protocol in memory: the test double of the core's seams.
///
/// Rule and scoring tests run on it without a database; parity tests hold it and the
/// SpatiaLite adapter to the same answers. It decides check-ins with the same
/// `CheckInFacts.gather` as the real stores, serialised by the actor as a database
/// transaction would. Covers is boundary-inclusive as `ST_Covers` (exact orientation
/// tests on the stored coordinates); distances are Karney's geodesics. Nothing is kept
/// when it is released, and `sync` trusts the geometry (no GEOS validity check).
public actor MemoryStore: LeagueStore {
    /// Held in this process's memory.
    public nonisolated var location: String { "(memory)" }

    private var catalog = HuntCatalog(hunts: [])
    /// The files of the last sync (`publishedFiles`).
    private var published: [PublishedFile] = []
    /// Their fingerprint (`publishedFingerprint`).
    private var fingerprint: String?
    /// Each hunt's revisions, oldest first.
    private var revisionsByHunt: [String: [HuntRevision]] = [:]
    private var drafts: [String: HuntDraft] = [:]
    private var index = GeofenceIndex(stops: [])
    private var playersByID: [PlayerID: PlayerRecord] = [:]
    /// The hunts each player joined.
    private var memberships: [PlayerID: Set<String>] = [:]
    /// Banned players.
    private var banned: Set<PlayerID> = []
    /// Announcements, oldest first.
    private var announced: [Announcement] = []
    private var teamsMade: [Team] = []
    private var adjustmentsMade: [Adjustment] = []
    private var erased: Set<PlayerID> = []
    /// Featured check-ins, with when they were featured.
    private var featuredAt: [Int64: Date] = [:]
    private var lastPositions: [String: [PlayerID: PlayerPosition]] = [:]
    /// Each player's team by hunt, with when they joined it.
    private var teamOf: [PlayerID: [String: (team: Int64, joinedAt: Date)]] = [:]
    private var checkIns: [MemoryCheckIn] = []
    /// The latest moderator decision per check-in id.
    private var decisions: [Int64: ReviewDecision] = [:]
    /// The reason of each check-in's latest decision.
    private var reasons: [Int64: String] = [:]
    private var scores: [PlayerID: [ScoreEvent]] = [:]
    private var passwordHashes: [PlayerID: String] = [:]
    private var roles: [PlayerID: Role] = [:]
    /// Sessions by token hash: whose, and until when.
    private var sessions: [String: (player: PlayerID, expiresAt: Date)] = [:]
    private var idempotency: [IdempotencySlot: IdempotentAnswer] = [:]
    private var avatars: [PlayerID: String] = [:]
    private var resets: [String: (player: PlayerID, expiresAt: Date, used: Bool)] = [:]

    /// An empty store: no hunts, no players.
    public init() {}

    // MARK: hunts

    /// Every hunt with its stops, in catalog order, with areas on the ellipsoid.
    public func hunts() -> [StoredHunt] {
        catalog.hunts.map { hunt in
            StoredHunt(
                hunt: hunt, file: "\(hunt.id).geojson",
                stopAreas: Dictionary(
                    uniqueKeysWithValues: hunt.stops.map {
                        ($0.id, Geodesic.areaSquareMeters(of: $0.geofence))
                    }))
        }
    }

    /// One hunt, or nil.
    public func hunt(id: String) -> StoredHunt? { hunts().first { $0.hunt.id == id } }

    /// The stops covering a position, boundary included (exact planar tests on the stored degrees).
    public func stops(covering position: Coordinate, inHunt huntID: String?) -> [StopReference] {
        coveringStops(position, huntID: huntID)
    }

    /// The stop with the least geodesic distance to its boundary, or nil without stops.
    public func nearestStop(to position: Coordinate, inHunt huntID: String?) -> NearestStop? {
        nearest(position, huntID: huntID)
    }

    /// The stops a segment meets, with the middle of its first pass through each.
    public func stops(crossedBy a: Coordinate, _ b: Coordinate, inHunt huntID: String?) -> [CrossedStop] {
        allStops(huntID).compactMap { stop in
            Crossing.fraction(a, b, stop.geofence).map {
                CrossedStop(stop: Self.reference(stop), fraction: $0)
            }
        }
    }

    /// Reads a folder of hunt files (`HuntSources`, the host's side) and syncs it.
    @discardableResult
    public func sync(directory: String, force: Bool) async throws -> SyncOutcome {
        try await readAndSync(directory: directory, force: force)
    }

    /// Validates the files (structure only; no GEOS here), replaces every hunt, records the
    /// revisions and rescores (`HuntStore.publish`).
    @discardableResult
    public func publish(_ publication: Publication) throws -> SyncOutcome {
        let built = try HuntCatalog.build(
            publication.sources, badges: publication.badges, inspector: TrustingInspector()
        ).get()
        for id in publication.publishedDrafts { drafts[id] = nil }
        if fingerprint == publication.fingerprint && publication.revisions.isEmpty { return .unchanged }
        guard fingerprint == publication.basedOn else { throw PublicationRace() }
        replaceCatalog(built)
        published = PublishedFile.of(publication.sources, badges: publication.badges)
        fingerprint = publication.fingerprint
        for revision in publication.revisions {
            let number = (revisionsByHunt[revision.huntID]?.last?.revision ?? 0) + 1
            revisionsByHunt[revision.huntID, default: []].append(
                HuntRevision(
                    huntID: revision.huntID, revision: number, publishedAt: publication.at, by: revision.by,
                    source: revision.source))
        }
        return .updated(hunts: built.hunts.count, stops: built.hunts.reduce(0) { $0 + $1.stops.count })
    }

    /// Replaces every hunt and stop, then rescores.
    public func replace(with catalog: HuntCatalog) {
        replaceCatalog(catalog)
        published = []
        fingerprint = nil
    }

    /// The fingerprint of the published files (`HuntStore.publishedFingerprint`).
    public func publishedFingerprint() -> String? { fingerprint }

    /// Each hunt's latest revision (`HuntStore.latestRevisions`).
    public func latestRevisions() -> [String: HuntRevision] { revisionsByHunt.compactMapValues(\.last) }

    /// A hunt's revisions, newest first (`HuntStore.revisions`).
    public func revisions(huntID: String) -> [HuntRevision] { (revisionsByHunt[huntID] ?? []).reversed() }

    /// A hunt's draft (`HuntStore.draft`).
    public func draft(huntID: String) -> HuntDraft? { drafts[huntID] }

    /// Keeps a draft (`HuntStore.saveDraft`).
    public func saveDraft(_ draft: HuntDraft) { drafts[draft.huntID] = draft }

    /// Drops a draft (`HuntStore.dropDraft`).
    @discardableResult
    public func dropDraft(huntID: String) -> Bool { drafts.removeValue(forKey: huntID) != nil }

    /// The hunts with drafts (`HuntStore.draftIDs`).
    public func draftIDs() -> [String] { drafts.keys.sorted() }

    /// The files of the last sync (`HuntStore.publishedFiles`).
    public func publishedFiles() -> [PublishedFile] { published }

    /// The badges of the definitions (`HuntStore.badgeDefinitions`).
    public func badgeDefinitions() -> [Badge] { catalog.badges }

    // MARK: players

    /// Registers a player; names are unique by `PlayerName.key`.
    @discardableResult
    public func addPlayer(name raw: String, email: String?, at now: Date) throws -> PlayerRecord {
        let name = try PlayerName.validate(raw).get()
        if let email { try PlayerRecord.validateEmail(email) }
        if playersByID.values.contains(where: { PlayerName.key($0.name) == PlayerName.key(name) }) {
            throw LeagueError.nameTaken(name: name)
        }
        let lookalike = PlayerName.lookalikeKey(name)
        if let other = playersByID.values.first(where: { PlayerName.lookalikeKey($0.name) == lookalike }) {
            throw LeagueError.nameLooksLike(name: name, existing: other.name)
        }
        let record = PlayerRecord(
            id: PlayerID(Int64(playersByID.count + 1)), name: name, email: email, createdAt: now)
        playersByID[record.id] = record
        return record
    }

    /// The player going by this name, ignoring case.
    public func player(named name: String) -> PlayerRecord? {
        playersByID.values.first { PlayerName.key($0.name) == PlayerName.key(name) }
    }

    /// The player with this id.
    public func player(id: PlayerID) -> PlayerRecord? { playersByID[id] }

    /// Records an announcement.
    public func announce(text: String, huntID: String?, by: String, at now: Date) -> Announcement {
        let made = Announcement(id: Int64(announced.count + 1), huntID: huntID, text: text, by: by, at: now)
        announced.append(made)
        return made
    }

    /// The latest announcements, newest first.
    public func announcements(limit: Int) -> [Announcement] { Array(announced.reversed().prefix(limit)) }

    /// The latest check-ins, newest first.
    public func feed(huntID: String?, before: Int64?, limit: Int) -> [FeedItem] {
        Array(
            checkIns.reversed().filter { c in
                (huntID == nil || c.huntID == huntID) && (before.map { c.id < $0 } ?? true)
            }.prefix(limit).map(feedItem(of:)))
    }

    /// One check-in as the feed shows it.
    public func feedItem(_ id: Int64) -> FeedItem? { checkIns.first { $0.id == id }.map(feedItem(of:)) }

    /// Features a check-in's photo, or stops featuring it.
    public func setFeatured(_ id: Int64, _ featured: Bool, by: String, at now: Date) -> Bool {
        guard checkIns.contains(where: { $0.id == id }) else { return false }
        if featured {
            if featuredAt[id] == nil { featuredAt[id] = now }
        } else {
            featuredAt[id] = nil
        }
        return true
    }

    /// A hunt's featured photos that still count, newest featured first.
    public func featured(huntID: String, limit: Int) -> [FeedItem] {
        Array(
            checkIns.filter { c in
                c.huntID == huntID && featuredAt[c.id] != nil && c.photoFile != nil && state(c).counts
                    && !banned.contains(c.player)
            }.sorted { (featuredAt[$0.id]!, $0.id) > (featuredAt[$1.id]!, $1.id) }.prefix(limit).map(
                feedItem(of:)))
    }

    private func feedItem(of c: MemoryCheckIn) -> FeedItem {
        FeedItem(
            id: c.id, playerID: c.player, player: playersByID[c.player]?.name ?? "?", team: c.team,
            huntID: c.huntID,
            stopID: c.stopID, stopName: c.stopID.flatMap { stop(id: $0)?.name }, receivedAt: c.receivedAt,
            state: state(c), hasPhoto: c.photoFile != nil, featured: featuredAt[c.id] != nil)
    }

    /// Renames a player, checked as at registration.
    public func rename(player: PlayerID, to raw: String) throws -> PlayerRecord {
        let name = try PlayerName.validate(raw).get()
        guard var record = playersByID[player], !erased.contains(player) else {
            throw LeagueError.unknownPlayerID(player)
        }
        let (key, lookalike) = (PlayerName.key(name), PlayerName.lookalikeKey(name))
        if let other = playersByID.values.first(where: {
            $0.id != player && !erased.contains($0.id)
                && (PlayerName.key($0.name) == key || PlayerName.lookalikeKey($0.name) == lookalike)
        }) {
            throw PlayerName.key(other.name) == key
                ? LeagueError.nameTaken(name: name)
                : LeagueError.nameLooksLike(name: name, existing: other.name)
        }
        record.name = name
        playersByID[player] = record
        return record
    }

    /// Erases an account; returns the photo keys only it held.
    public func erase(player: PlayerID) throws -> [String] {
        guard var record = playersByID[player], !erased.contains(player) else {
            throw LeagueError.unknownPlayerID(player)
        }
        let others = Set(checkIns.filter { $0.player != player }.compactMap(\.photoFile))
        var keys = Set(checkIns.filter { $0.player == player }.compactMap(\.photoFile)).subtracting(others)
        if let avatar = avatars[player], !others.contains(avatar),
            !avatars.contains(where: { $0.key != player && $0.value == avatar })
        {
            keys.insert(avatar)
        }
        record.name = ErasedAccount.name(player)
        record.email = nil
        playersByID[player] = record
        erased.insert(player)
        avatars[player] = nil
        passwordHashes[player] = nil
        sessions = sessions.filter { $0.value.player != player }
        resets = resets.filter { $0.value.player != player }
        idempotency = idempotency.filter { $0.key.player != player }
        teamOf[player] = nil
        memberships[player] = nil
        for c in checkIns where c.player == player { featuredAt[c.id] = nil }
        for hunt in lastPositions.keys { lastPositions[hunt]?[player] = nil }
        return keys.sorted()
    }

    /// Records a player's position in a hunt, replacing the one before.
    public func recordPosition(_ position: PlayerPosition) {
        var kept = position
        kept.player = ""
        lastPositions[position.huntID, default: [:]][position.playerID] = kept
    }

    /// The hunt's positions since `since`, newest first, without banned or erased players.
    public func positions(huntID: String, since: Date) -> [PlayerPosition] {
        (lastPositions[huntID] ?? [:]).values
            .filter { $0.at >= since && !banned.contains($0.playerID) && !erased.contains($0.playerID) }
            .compactMap { position -> PlayerPosition? in
                guard let record = playersByID[position.playerID] else { return nil }
                var named = position
                named.player = record.name
                return named
            }
            .sorted { ($0.at, $0.playerID.rawValue) > ($1.at, $1.playerID.rawValue) }
    }

    /// Deletes the hunt's positions.
    public func forgetPositions(huntID: String) -> Int {
        lastPositions.removeValue(forKey: huntID)?.count ?? 0
    }

    /// Records an adjustment.
    public func adjust(
        _ subject: Adjustment.Subject, huntID: String?, points: Int, reason: String, by: String, at now: Date
    ) -> Adjustment {
        let made = Adjustment(
            id: Int64(adjustmentsMade.count + 1), subject: subject, huntID: huntID, points: points,
            reason: reason,
            by: by, at: now)
        adjustmentsMade.append(made)
        return made
    }

    /// A player's or team's adjustments.
    public func adjustments(of subject: Adjustment.Subject) -> [Adjustment] {
        adjustmentsMade.filter { $0.subject == subject }
    }

    /// A hunt's adjustments.
    public func adjustments(huntID: String) -> [Adjustment] { adjustmentsMade.filter { $0.huntID == huntID } }

    /// Makes a team; its founder (when given) is its first member.
    public func createTeam(huntID: String, name: String, joinCode: String, founder: PlayerID?, at now: Date)
        throws -> Team
    {
        let key = Team.nameKey(name)
        guard !teamsMade.contains(where: { $0.huntID == huntID && Team.nameKey($0.name) == key }) else {
            throw LeagueError.teamNameTaken(name: name)
        }
        let team = Team(
            id: Int64(teamsMade.count + 1), huntID: huntID, name: name, joinCode: joinCode, createdAt: now)
        teamsMade.append(team)
        if let founder { putOnTeam(team, player: founder, at: now) }
        return team
    }

    /// The team with this id.
    public func team(id: Int64) -> Team? { teamsMade.first { $0.id == id } }

    /// The team with this join code.
    public func team(joinCode: String) -> Team? { teamsMade.first { $0.joinCode == joinCode } }

    /// A hunt's teams.
    public func teams(huntID: String) -> [Team] { teamsMade.filter { $0.huntID == huntID } }

    /// The player's team on a hunt.
    public func team(of player: PlayerID, huntID: String) -> Team? {
        teamOf[player]?[huntID].flatMap { team(id: $0.team) }
    }

    /// A team's members.
    public func members(team: Int64) -> [TeamMember] {
        teamOf.compactMap { player, hunts -> TeamMember? in
            guard let entry = hunts.values.first(where: { $0.team == team }), let record = playersByID[player]
            else { return nil }
            return TeamMember(player: player, name: record.name, joinedAt: entry.joinedAt)
        }.sorted { ($0.joinedAt, $0.player.rawValue) < ($1.joinedAt, $1.player.rawValue) }
    }

    /// The members of a hunt's teams, by team.
    public func members(huntID: String) -> [Int64: [TeamMember]] {
        var members: [Int64: [TeamMember]] = [:]
        for (player, hunts) in teamOf {
            guard let entry = hunts[huntID], let record = playersByID[player] else { continue }
            members[entry.team, default: []].append(
                TeamMember(player: player, name: record.name, joinedAt: entry.joinedAt))
        }
        return members.mapValues {
            $0.sorted { ($0.joinedAt, $0.player.rawValue) < ($1.joinedAt, $1.player.rawValue) }
        }
    }

    /// Puts a player on a team unless it is full.
    public func joinTeam(_ id: Int64, player: PlayerID, maxSize: Int?, at now: Date) -> TeamJoining {
        guard let team = team(id: id) else { return .full }
        if teamOf[player]?[team.huntID]?.team == id { return .already }
        if let maxSize, members(team: id).count >= maxSize { return .full }
        putOnTeam(team, player: player, at: now)
        return .joined
    }

    /// Takes a player off a team.
    public func leaveTeam(_ id: Int64, player: PlayerID) -> Bool {
        guard let team = team(id: id), teamOf[player]?[team.huntID]?.team == id else { return false }
        teamOf[player]?[team.huntID] = nil
        return true
    }

    /// A hunt's accepted check-ins recorded with a team (banned players' left out).
    public func teamCheckIns(huntID: String, team only: Int64?) -> [TeamCheckIn] {
        checkIns.compactMap { c -> TeamCheckIn? in
            guard c.huntID == huntID, let team = c.team, only == nil || only == team,
                !banned.contains(c.player),
                state(c).counts,
                let hunt = c.huntID, let stop = c.stopID, let time = c.fixTime
            else { return nil }
            return TeamCheckIn(
                team: team, player: c.player,
                checkIn: ScoredCheckIn(
                    id: c.id, huntID: hunt, stopID: stop, time: time, clock: c.clock,
                    answered: c.answerRight == true))
        }
    }

    /// A hunt's team board, scored from its check-ins (this store keeps no running totals).
    public func teamBoard(huntID: String, limit: Int?) -> [TeamStanding] {
        guard let hunt = hunt(id: huntID)?.hunt else { return [] }
        let rows = TeamBoard.standings(
            hunt: hunt, teams: teams(huntID: huntID), members: members(huntID: huntID),
            checkIns: teamCheckIns(huntID: huntID, team: nil), badges: badgeDefinitions(),
            adjustments: adjustments(huntID: huntID)
        ).map { row in
            var row = row
            row.visits = [:]
            return row
        }
        return Array(rows.prefix(limit ?? rows.count))
    }

    /// A team's rank with `points` on its hunt's board.
    public func teamRank(huntID: String, points: Int) -> Int {
        1 + teamBoard(huntID: huntID, limit: nil).filter { $0.points > points }.count
    }

    /// The hunts a player is on a team of.
    func teamHunts(player: PlayerID) -> Set<String> { Set((teamOf[player] ?? [:]).keys) }

    private func putOnTeam(_ team: Team, player: PlayerID, at now: Date) {
        teamOf[player, default: [:]][team.huntID] = (team.id, now)
        memberships[player, default: []].insert(team.huntID)
    }

    /// Joins a player to a hunt (once).
    public func joinHunt(player: PlayerID, huntID: String, at now: Date) {
        memberships[player, default: []].insert(huntID)
    }

    /// The hunts a player joined.
    public func joinedHunts(player: PlayerID) -> Set<String> { memberships[player] ?? [] }

    /// Every player with totals, by name key.
    public func players() -> [PlayerSummary] {
        playersByID.values.sorted { PlayerName.key($0.name) < PlayerName.key($1.name) }.map { p in
            let mine = checkIns.filter { $0.player == p.id }
            return PlayerSummary(
                id: p.id, name: p.name, email: p.email, createdAt: p.createdAt,
                points: scores[p.id, default: []].reduce(0) { $0 + $1.points }, checkIns: mine.count,
                acceptedCheckIns: mine.filter { state($0).counts }.count)
        }
    }

    // MARK: accounts

    /// Registers a player and their password hash together.
    @discardableResult
    public func addPlayer(name: String, email: String?, passwordHash: String, at now: Date) throws
        -> PlayerRecord
    {
        let record = try addPlayer(name: name, email: email, at: now)
        passwordHashes[record.id] = passwordHash
        return record
    }

    /// The player's credentials, by name ignoring case.
    public func credentials(named name: String) -> Credentials? {
        player(named: name).flatMap { banned.contains($0.id) ? nil : $0 }.map {
            Credentials(player: $0, passwordHash: passwordHashes[$0.id], role: roles[$0.id] ?? .player)
        }
    }

    /// Replaces the hash and ends the player's sessions.
    public func setPasswordHash(_ hash: String, player: PlayerID) throws {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        passwordHashes[player] = hash
        sessions = sessions.filter { $0.value.player != player }
        resets = resets.filter { $0.value.player != player || $0.value.used }
    }

    /// Sets the player's role.
    public func setRole(_ role: Role, player: PlayerID) throws {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        roles[player] = role
    }

    /// Bans a player (their sessions end) or lifts the ban.
    public func setBanned(_ banned: Bool, player: PlayerID) throws {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        if banned {
            self.banned.insert(player)
            sessions = sessions.filter { $0.value.player != player }
        } else {
            self.banned.remove(player)
        }
    }

    /// Keeps a session under its token's hash.
    public func createSession(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) throws {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        sessions[tokenHash] = (player, expiresAt)
    }

    /// The unexpired session with this token hash.
    public func session(tokenHash: String, at now: Date) -> Session? {
        guard let found = sessions[tokenHash], found.expiresAt > now, let record = playersByID[found.player],
            !banned.contains(found.player)
        else {
            return nil
        }
        return Session(player: record, role: roles[found.player] ?? .player, expiresAt: found.expiresAt)
    }

    /// Forgets a session.
    public func deleteSession(tokenHash: String) {
        sessions[tokenHash] = nil
    }

    /// Changes the address.
    public func setEmail(_ email: String, player: PlayerID) throws {
        try PlayerRecord.validateEmail(email)
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        playersByID[player]?.email = email
        resets = resets.filter { $0.value.player != player || $0.value.used }
    }

    /// Sets the avatar's key.
    public func setAvatar(_ key: String, player: PlayerID) throws {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        avatars[player] = key
    }

    /// The avatar's key.
    public func avatar(player: PlayerID) -> String? { avatars[player] }

    /// The avatars' keys of these players.
    public func avatars(players: [PlayerID]) -> [PlayerID: String] {
        avatars.filter { players.contains($0.key) }
    }

    /// Players by address, ignoring case.
    public func players(withEmail email: String) -> [PlayerRecord] {
        playersByID.values.filter { $0.email?.lowercased() == email.lowercased() }.sorted { $0.id < $1.id }
    }

    /// Keeps a reset token's hash.
    public func createPasswordReset(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) {
        resets[tokenHash] = (player, expiresAt, false)
    }

    /// Uses a reset token.
    public func resetPassword(tokenHash: String, passwordHash: String, at now: Date) -> PlayerID? {
        guard let reset = resets[tokenHash], !reset.used, reset.expiresAt > now else { return nil }
        for (hash, other) in resets where other.player == reset.player { resets[hash]?.used = true }
        passwordHashes[reset.player] = passwordHash
        sessions = sessions.filter { $0.value.player != reset.player }
        return reset.player
    }

    // MARK: check-ins

    /// Decides and records one submission, serialised by the actor like a transaction.
    public func record(_ submission: Submission, photoFile: String?, decide: @escaping CheckInDecider) throws
        -> RecordedCheckIn
    {
        try recordOne(submission, photoFile: photoFile, decide: decide)
    }

    /// Decides and records many, in order; none when any names an unknown player.
    public func recordBatch(
        _ submissions: [(submission: Submission, photoFile: String?)], decide: @escaping CheckInDecider
    )
        throws -> [RecordedCheckIn]
    {
        // All or nothing, as one transaction: check every player first.
        for entry in submissions where playersByID[entry.submission.player] == nil {
            throw LeagueError.unknownPlayerID(entry.submission.player)
        }
        return try submissions.map { try recordOne($0.submission, photoFile: $0.photoFile, decide: decide) }
    }

    /// Groups are decided at high priority: this actor is the one writer, as SQLite's queue is
    /// (`CheckInStore.groupPriority`).
    public nonisolated var groupPriority: TaskPriority? { .high }

    /// Decides and records a group in order, as one transaction; retry keys as in SpatiaLite.
    public func recordGroup(_ requests: [CheckInRequest], decide: @escaping CheckInDecider) throws
        -> [CheckInOutcome]
    {
        for request in requests where playersByID[request.submission.player] == nil {
            throw LeagueError.unknownPlayerID(request.submission.player)
        }
        return try requests.map { request in
            guard let claim = request.idempotency else {
                return .recorded(
                    try recordOne(request.submission, photoFile: request.photoFile, decide: decide),
                    answer: nil)
            }
            let slot = IdempotencySlot(player: request.submission.player, key: claim.key)
            if let earlier = idempotency[slot] { return .repeated(earlier) }
            let recorded = try recordOne(request.submission, photoFile: request.photoFile, decide: decide)
            let answer = claim.answer(recorded)
            idempotency[slot] = IdempotentAnswer(
                checkInID: recorded.id, fingerprint: claim.fingerprint, answer: answer)
            return .recorded(recorded, answer: answer)
        }
    }

    /// The answer kept under a player's retry key.
    public func idempotentAnswer(player: PlayerID, key: String) -> IdempotentAnswer? {
        idempotency[IdempotencySlot(player: player, key: key)]
    }

    /// The stops of a hunt the player holds an accepted check-in at.
    public func visitedStops(player: PlayerID, hunt huntID: String) -> Set<String> {
        Set(accepted(player).filter { $0.huntID == huntID }.compactMap(\.stopID))
    }

    // MARK: reviews

    /// Check-ins still pending, oldest first.
    public func pendingCheckIns() -> [PendingCheckIn] {
        checkIns.filter { state($0) == .pending }.map { c in
            PendingCheckIn(
                id: c.id, playerID: c.player, player: playersByID[c.player]?.name ?? "?",
                receivedAt: c.receivedAt,
                huntID: c.huntID, stopID: c.stopID, stopName: c.stopID.flatMap { stop(id: $0)?.name },
                reasons: c.rules.filter { $0.outcome == .needsReview }.map {
                    "\($0.rule.rawValue): \($0.detail)"
                },
                photoFile: c.photoFile, position: c.position, accuracyMeters: c.accuracyMeters,
                fixTime: c.fixTime)
        }
    }

    /// The player and photo of check-in `id`.
    public func photo(ofCheckIn id: Int64) -> CheckInPhoto? {
        checkIns.first { $0.id == id }.map { CheckInPhoto(playerID: $0.player, photoFile: $0.photoFile) }
    }

    /// Check-in `id` as it was submitted.
    public func reviewSubject(_ id: Int64) -> ReviewSubject? {
        checkIns.first { $0.id == id }.map { c in
            var subject = ReviewSubject(
                id: c.id, playerID: c.player, receivedAt: c.receivedAt, source: c.source, huntID: c.huntID,
                position: c.position, accuracyMeters: c.accuracyMeters, fixTime: c.fixTime,
                photoFile: c.photoFile,
                state: state(c), failedRules: c.rules.filter { $0.outcome == .failed }.map(\.rule))
            subject.codeChecked = c.rules.contains { $0.rule == .code && $0.outcome == .passed }
            subject.answerChecked = c.answerRight
            return subject
        }
    }

    /// The facts the rules would see for `submission` now.
    public func facts(for submission: Submission) throws -> CheckInFacts {
        try CheckInFacts.gather(for: submission, from: MemoryHistory(store: self))
    }

    /// Records a moderator's decision and rescores the player.
    public func review(
        _ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date
    ) throws
        -> ReviewOutcome
    {
        _ = try ReviewDecision.validReason(reason)
        guard let checkIn = checkIns.first(where: { $0.id == id }) else {
            throw LeagueError.unknownCheckIn(id: id)
        }
        let current = state(checkIn)
        guard current == decision.requiredState else {
            throw LeagueError.checkInState(id: id, state: current, required: decision.requiredState)
        }
        let total = { (self.scores[checkIn.player] ?? []).reduce(0) { $0 + $1.points } }
        let pointsBefore = total()
        decisions[id] = decision
        reasons[id] = reason
        rescore(checkIn.player)
        let pointsAfter = total()
        return ReviewOutcome(
            checkInID: id, playerID: checkIn.player, player: playersByID[checkIn.player]?.name ?? "?",
            state: state(checkIn), pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter)
    }

    /// Overturns rejected check-in `id`: its evidence recorded again, decided now, and approved.
    public func overturn(
        _ id: Int64, as submission: Submission, photoFile: String?, decide: @escaping CheckInDecider,
        reason: String, moderator: String, at now: Date
    ) throws -> ReviewOutcome {
        _ = try ReviewDecision.validReason(reason)
        guard let rejected = checkIns.first(where: { $0.id == id }) else {
            throw LeagueError.unknownCheckIn(id: id)
        }
        guard state(rejected) == .rejected else {
            throw LeagueError.checkInState(id: id, state: state(rejected), required: .rejected)
        }
        if let by = checkIns.first(where: { $0.overturns == id }) {
            throw LeagueError.overturned(id: id, by: by.id)
        }
        let total = { (self.scores[rejected.player] ?? []).reduce(0) { $0 + $1.points } }
        let pointsBefore = total()
        let copy = try recordOne(submission, photoFile: photoFile, decide: decide, overturns: id)
        decisions[copy.id] = .approved
        reasons[copy.id] = reason
        rescore(rejected.player)
        let pointsAfter = total()
        return ReviewOutcome(
            checkInID: id, playerID: rejected.player, player: copy.player,
            state: state(checkIns[checkIns.count - 1]),
            pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter, recordedAs: copy.id)
    }

    // MARK: scores

    /// Rankings from the score events, as the SpatiaLite store ranks them.
    public func leaderboard(_ query: LeaderboardQuery) throws -> [LeaderboardEntry] {
        if let huntID = query.huntID, hunt(id: huntID) == nil {
            throw LeagueError.unknownHunt(id: huntID, known: catalog.hunts.map(\.id))
        }
        // Each player's events in the window, and the organisers' adjustments beside them (kind nil).
        func within(_ hunt: String?, _ at: Date) -> Bool {
            (query.huntID == nil || hunt == query.huntID) && (query.since.map { at >= $0 } ?? true)
                && (query.until.map { at < $0 } ?? true)
        }
        var entries: [PlayerID: [(kind: ScoreEvent.Kind?, points: Int, at: Date)]] = [:]
        for (id, events) in scores {
            for e in events where within(e.huntID, e.at) {
                entries[id, default: []].append((e.kind, e.points, e.at))
            }
        }
        for a in adjustmentsMade {
            guard case .player(let id) = a.subject, within(a.huntID, a.at) else { continue }
            entries[id, default: []].append((nil, a.points, a.at))
        }
        var rows: [(player: PlayerRecord, events: [(kind: ScoreEvent.Kind?, points: Int, at: Date)])] = []
        for (id, kept) in entries {
            if !kept.isEmpty, let player = playersByID[id], !banned.contains(id) {
                rows.append((player, kept))
            }
        }
        func points(_ events: [(kind: ScoreEvent.Kind?, points: Int, at: Date)]) -> Int {
            events.reduce(0) { $0 + $1.points }
        }
        func reached(_ events: [(kind: ScoreEvent.Kind?, points: Int, at: Date)]) -> Date {
            events.map(\.at).max()!
        }
        rows.sort { a, b in
            let (pa, pb) = (points(a.events), points(b.events))
            if pa != pb { return pa > pb }
            if reached(a.events) != reached(b.events) { return reached(a.events) < reached(b.events) }
            return PlayerName.key(a.player.name) < PlayerName.key(b.player.name)
        }
        if let limit = query.limit { rows = Array(rows.prefix(limit)) }
        let ranks = Ranking.competition(points: rows.map { points($0.events) })
        return zip(ranks, rows).map { rank, row in
            LeaderboardEntry(
                rank: rank, playerID: row.player.id, player: row.player.name, points: points(row.events),
                huntsCompleted: row.events.filter { $0.kind == .bonus }.count,
                stopsVisited: row.events.filter { $0.kind == .stop }.count,
                badges: row.events.filter { $0.kind == .badge }.count, reachedAt: reached(row.events))
        }
    }

    /// A player's totals, progress, badges and latest check-ins.
    public func profile(player: PlayerID, recent: Int, acceptedOnly: Bool) throws -> PlayerProfile {
        guard let record = playersByID[player] else { throw LeagueError.unknownPlayerID(player) }
        let events = scores[player, default: []]
        let hunts = catalog.hunts.map { hunt in
            PlayerProfile.HuntProgress(
                huntID: hunt.id, name: hunt.name,
                visited: events.filter { $0.kind == .stop && $0.huntID == hunt.id }.count,
                total: hunt.stops.count,
                completedAt: events.filter { $0.kind == .bonus && $0.huntID == hunt.id }.map(\.at).min())
        }
        let badgeOrder = Dictionary(uniqueKeysWithValues: catalog.badges.enumerated().map { ($1.id, $0) })
        let badges = events.filter { $0.kind == .badge }
            .sorted {
                ($0.at, badgeOrder[$0.badgeID ?? ""] ?? 0) < ($1.at, badgeOrder[$1.badgeID ?? ""] ?? 0)
            }
            .map { e in
                let badge = catalog.badges.first { $0.id == e.badgeID }
                return PlayerProfile.EarnedBadge(
                    id: e.badgeID ?? "", name: badge?.name ?? "", description: badge?.description ?? "",
                    points: e.points,
                    earnedAt: e.at, checkInID: e.checkInID)
            }
        let latest = checkIns.filter { $0.player == player && (!acceptedOnly || state($0).counts) }
            .suffix(max(0, recent)).reversed().map { c in
                PlayerProfile.RecentCheckIn(
                    id: c.id, receivedAt: c.receivedAt, huntID: c.huntID, stopID: c.stopID,
                    stopName: c.stopID.flatMap { stop(id: $0)?.name }, state: state(c),
                    points: events.filter { $0.checkInID == c.id }.reduce(0) { $0 + $1.points },
                    hasPhoto: c.photoFile != nil, reason: reasons[c.id])
            }
        return PlayerProfile(
            id: player, name: record.name, createdAt: record.createdAt,
            points: events.reduce(0) { $0 + $1.points },
            stopsVisited: events.filter { $0.kind == .stop }.count,
            huntsCompleted: events.filter { $0.kind == .bonus }.count,
            hunts: hunts, badges: badges, recent: Array(latest))
    }

    /// A hunt's stops with the player's first accepted photo at each.
    public func collagePlan(player: PlayerID, hunt huntID: String) throws -> CollagePlan {
        guard playersByID[player] != nil else { throw LeagueError.unknownPlayerID(player) }
        guard let hunt = catalog.hunts.first(where: { $0.id == huntID }) else {
            throw LeagueError.unknownHunt(id: huntID, known: catalog.hunts.map(\.id))
        }
        let mine = accepted(player)
        let tiles = hunt.stops.map { stop in
            let here = mine.filter { $0.stopID == stop.id }
            let photo = here.filter { $0.photoFile != nil }.min {
                ($0.fixTime ?? .distantPast, $0.id) < ($1.fixTime ?? .distantPast, $1.id)
            }
            return CollageTile(
                stopID: stop.id, stopName: stop.name, visited: !here.isEmpty, photoFile: photo?.photoFile)
        }
        let complete = scores[player, default: []].contains { $0.kind == .bonus && $0.huntID == huntID }
        return CollagePlan(huntName: hunt.name, tiles: tiles, complete: complete)
    }

    /// Recomputes every player's score events from their accepted check-ins.
    public func rescoreEveryone() {
        for id in playersByID.keys { rescore(id) }
    }

    /// Players and points from the hunt's score events (or the stop's stop points).
    public func pointsHeld(hunt huntID: String, stop stopID: String?) -> PointsHeld {
        var held = PointsHeld(players: 0, points: 0)
        for events in scores.values {
            let mine = events.filter {
                $0.huntID == huntID && (stopID == nil || ($0.kind == .stop && $0.stopID == stopID))
            }
            guard !mine.isEmpty else { continue }
            held.players += 1
            held.points += mine.reduce(0) { $0 + $1.points }
        }
        return held
    }

    // MARK: doctor

    /// Counts, and the recorded photos missing from `photos` (the rest holds by construction).
    public func health(photos: any PhotoStore) async -> StoreHealth {
        var missing = 0
        for file in Set(checkIns.compactMap(\.photoFile)) where !(await photos.exists(file)) { missing += 1 }
        return StoreHealth(
            integrity: ["ok"], foreignKeyViolations: 0, players: playersByID.count, checkIns: checkIns.count,
            stops: catalog.hunts.reduce(0) { $0 + $1.stops.count }, missingPhotos: missing,
            playersWithWrongTotals: 0)
    }
}

extension MemoryStore {
    private func replaceCatalog(_ new: HuntCatalog) {
        // A rotating code the file leaves to vsh keeps the secret it was given (`StoredStopSecrets`).
        let previous = Dictionary(
            catalog.hunts.flatMap(\.stops).compactMap { stop in
                stop.rotatingCode?.secret.map { (stop.id, $0) }
            },
            uniquingKeysWith: { first, _ in first })
        var hunts = new.hunts
        for h in hunts.indices {
            for s in hunts[h].stops.indices where hunts[h].stops[s].rotatingCode == .madeAtPublish {
                let id = hunts[h].stops[s].id
                hunts[h].stops[s].rotatingCode = .secret(previous[id] ?? RotatingCode.makeSecret())
            }
        }
        let new = HuntCatalog(hunts: hunts, badges: new.badges)
        catalog = new
        index = GeofenceIndex(stops: new.hunts.flatMap(\.stops))
        rescoreEveryone()
    }

    private func recordOne(
        _ submission: Submission, photoFile: String?, decide: CheckInDecider, overturns: Int64? = nil
    ) throws -> RecordedCheckIn {
        guard let player = playersByID[submission.player] else {
            throw LeagueError.unknownPlayerID(submission.player)
        }
        let facts = try CheckInFacts.gather(for: submission, from: MemoryHistory(store: self))
        let decision = decide(submission, facts)
        let id = Int64(checkIns.count + 1)
        checkIns.append(
            MemoryCheckIn(
                id: id, player: player.id, receivedAt: submission.receivedAt, huntID: decision.hunt?.id,
                stopID: decision.stop?.id, verdict: decision.verdict, rules: decision.rules,
                photoFile: photoFile,
                imageSHA256: submission.photo?.imageSHA256, pixelSHA256: submission.photo?.pixelSHA256,
                perceptualHash: submission.photo?.perceptualHash, clock: submission.clockTime,
                position: submission.reportedPosition,
                accuracyMeters: submission.accuracyMeters,
                fixTime: decision.fix?.time ?? submission.fixTime(in: decision.hunt),
                source: submission.source, overturns: overturns,
                team: decision.hunt.flatMap { teamOf[player.id]?[$0.id]?.team },
                answerRight: decision.answerRight))
        var awards: [ScoreEvent] = []
        if decision.verdict == .accepted {
            rescore(player.id)
            awards = scores[player.id, default: []].filter { $0.checkInID == id && $0.kind.isAward }
        }
        return RecordedCheckIn(
            id: id, playerID: player.id, player: player.name, receivedAt: submission.receivedAt,
            source: submission.source,
            decision: decision, state: CheckInState(decision.verdict), photoFile: photoFile, awards: awards)
    }

    /// The check-in's current state: its verdict unless a moderator decided since.
    func state(_ c: MemoryCheckIn) -> CheckInState {
        CheckInState(verdict: c.verdict, latestDecision: decisions[c.id])
    }

    func accepted(_ player: PlayerID) -> [MemoryCheckIn] {
        checkIns.filter { $0.player == player && state($0).counts }
    }

    /// The player's accepted and pending check-ins: what the rules' history questions see.
    func standing(_ player: PlayerID) -> [MemoryCheckIn] {
        checkIns.filter { $0.player == player && state($0).isLive }
    }

    private func rescore(_ player: PlayerID) {
        let scored = accepted(player).compactMap { c -> ScoredCheckIn? in
            guard let hunt = c.huntID, let stop = c.stopID, let time = c.fixTime else { return nil }
            return ScoredCheckIn(
                id: c.id, huntID: hunt, stopID: stop, time: time, clock: c.clock,
                answered: c.answerRight == true)
        }
        scores[player] = Scoring.events(
            for: scored, hunts: catalog.hunts.map(ScoringHunt.init), badges: catalog.badges)
    }

    func stop(id: String) -> Stop? {
        for hunt in catalog.hunts { if let stop = hunt.stops.first(where: { $0.id == id }) { return stop } }
        return nil
    }

    func allStops(_ huntID: String?) -> [Stop] {
        catalog.hunts.filter { huntID == nil || $0.id == huntID }.flatMap(\.stops)
    }

    static func reference(_ stop: Stop) -> StopReference {
        StopReference(huntID: stop.huntID, stopID: stop.id, name: stop.name)
    }

    func coveringStops(_ position: Coordinate, huntID: String?) -> [StopReference] {
        var found: [Int] = []
        if index.covering(latitude: position.latitude, longitude: position.longitude, into: &found) {
            return found.map { index.entries[$0] }.filter { huntID == nil || $0.huntID == huntID }
                .map { StopReference(huntID: $0.huntID, stopID: $0.stopID, name: $0.name) }
        }
        return allStops(huntID).filter { Crossing.covers($0.geofence, position) }.map(Self.reference)
    }

    func nearest(_ position: Coordinate, huntID: String?) -> NearestStop? {
        allStops(huntID).map {
            NearestStop(
                stop: Self.reference($0),
                distanceMeters: Geodesic.distanceMeters(from: position, toBoundaryOf: $0.geofence))
        }
        .min { $0.distanceMeters < $1.distanceMeters }
    }
}

/// One check-in as the memory store keeps it.
struct MemoryCheckIn: Sendable {
    var id: Int64
    var player: PlayerID
    var receivedAt: Date
    var huntID: String?
    var stopID: String?
    var verdict: Verdict
    var rules: [RuleResult]
    var photoFile: String?
    var imageSHA256: String?
    var pixelSHA256: String?
    var perceptualHash: UInt64?
    var clock: Date?
    var position: Coordinate?
    var accuracyMeters: Double?
    var fixTime: Date?
    var source: FixSource
    /// The rejected check-in this one overturns, if any.
    var overturns: Int64? = nil
    /// The team it counted for, if any.
    var team: Int64? = nil
    /// Whether its answer to the stop's question was right; nil when none was judged.
    var answerRight: Bool? = nil
}

/// `CheckInHistory` over the store's state, read inside the actor (one "transaction").
struct MemoryHistory: CheckInHistory {
    let store: MemoryStore

    func hunt(id: String) throws -> Hunt? { store.assumeIsolated { $0.hunt(id: id)?.hunt } }
    func huntIDs() throws -> [String] { store.assumeIsolated { $0.hunts().map(\.hunt.id) } }
    func joinedHunts(player: PlayerID) throws -> Set<String> {
        store.assumeIsolated { $0.joinedHunts(player: player) }
    }
    func teamHunts(player: PlayerID) throws -> Set<String> {
        store.assumeIsolated { $0.teamHunts(player: player) }
    }
    func stops(covering position: Coordinate, inHunt huntID: String?) throws -> [StopReference] {
        store.assumeIsolated { $0.coveringStops(position, huntID: huntID) }
    }
    func nearestStop(to position: Coordinate, inHunt huntID: String?) throws -> NearestStop? {
        store.assumeIsolated { $0.nearest(position, huntID: huntID) }
    }
    func visitedStops(player: PlayerID, hunt huntID: String) throws -> [String: Date] {
        store.assumeIsolated { store in
            var first: [String: Date] = [:]
            for c in store.accepted(player) where c.huntID == huntID {
                guard let stop = c.stopID, let time = c.fixTime else { continue }
                if first[stop].map({ time < $0 }) ?? true { first[stop] = time }
            }
            return first
        }
    }
    func answerTries(player: PlayerID, hunt huntID: String, excluding checkIn: Int64?) throws
        -> [String: AnswerTries]
    {
        store.assumeIsolated { store in
            var found: [String: AnswerTries] = [:]
            for c in store.checkInsSnapshot
            where c.player == player && c.huntID == huntID && c.id != checkIn && c.answerRight != nil {
                guard let stop = c.stopID else { continue }
                var tries = found[stop] ?? AnswerTries()
                if c.answerRight == false { tries.wrong += 1 }
                if c.answerRight == true, store.state(c).isLive { tries.right = true }
                found[stop] = tries
            }
            return found
        }
    }
    func neighbourFixes(player: PlayerID, around time: Date, excluding checkIn: Int64?) throws -> [Fix] {
        store.assumeIsolated { store in
            let timed = store.standing(player).filter {
                $0.fixTime != nil && $0.position != nil && $0.id != checkIn
            }
            let before = timed.filter { $0.fixTime! <= time }.max { $0.fixTime! < $1.fixTime! }
            let after = timed.filter { $0.fixTime! > time }.min { $0.fixTime! < $1.fixTime! }
            return [before, after].compactMap { c in
                c.map {
                    Fix(
                        position: $0.position!, time: $0.fixTime!, accuracyMeters: $0.accuracyMeters,
                        source: $0.source, receivedAt: $0.receivedAt, huntID: $0.huntID)
                }
            }
        }
    }
    func photoUses(image: String, pixels: String?, player: PlayerID, excluding checkIn: Int64?) throws
        -> PhotoUses?
    {
        store.assumeIsolated { store in
            let uses = store.checkInsSnapshot.filter {
                $0.imageSHA256 == image || (pixels != nil && $0.pixelSHA256 == pixels)
            }
            guard let first = uses.first else { return nil }
            let standing = uses.first {
                $0.id != checkIn && $0.player == player && store.state($0).holdsItsPhoto
            }
            let ownerStanding = uses.contains { $0.player == first.player && store.state($0).holdsItsPhoto }
            return PhotoUses.seen(
                first: first.id, owner: first.player, ownStanding: standing?.id, ownerStanding: ownerStanding,
                rechecked: checkIn)
        }
    }

    func nearCopy(of perceptualHash: UInt64, excluding player: PlayerID, image: String, pixels: String?)
        throws
        -> NearCopy?
    {
        store.assumeIsolated { store in
            NearCopy.nearest(
                to: perceptualHash,
                among: store.checkInsSnapshot.compactMap { c in
                    let exact = c.imageSHA256 == image || (pixels != nil && c.pixelSHA256 == pixels)
                    return c.player == player || exact ? nil : c.perceptualHash.map { (c.id, $0) }
                })
        }
    }
}

extension MemoryStore {
    var checkInsSnapshot: [MemoryCheckIn] { checkIns }
}

/// Accepts every geofence as valid and measures it on the ellipsoid: the memory store
/// trusts its catalog (the real stores ask GEOS).
struct TrustingInspector: GeofenceInspector {
    func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
        GeofenceInspection(invalidReason: nil, areaSquareMeters: Geodesic.areaSquareMeters(of: geofence))
    }
}

/// A player's retry key.
struct IdempotencySlot: Hashable {
    var player: PlayerID
    var key: String
}
