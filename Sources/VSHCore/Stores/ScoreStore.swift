public import Foundation

/// Which leaderboard: all hunts or one, all time or a window [since, until) on the
/// time the points were earned, and how many rows.
public struct LeaderboardQuery: Hashable, Sendable {
    /// One hunt's points only (nil: all hunts).
    public var huntID: String?
    /// Points earned at or after this time.
    public var since: Date?
    /// Points earned before this time.
    public var until: Date?
    /// At most this many rows.
    public var limit: Int?

    /// A query from its parts (all nil: the all-time board).
    public init(huntID: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int? = nil) {
        self.huntID = huntID
        self.since = since
        self.until = until
        self.limit = limit
    }

    /// All hunts, all time: the board the running totals answer.
    public var isAllTime: Bool { huntID == nil && since == nil && until == nil }
}

/// One line of a leaderboard.
public struct LeaderboardEntry: Equatable, Sendable {
    /// Competition ranking: equal points share a rank (1, 2, 2, 4); see `Ranking`.
    public var rank: Int
    /// The player's id.
    public var playerID: PlayerID
    /// The player's display name.
    public var player: String
    /// Total points in the window.
    public var points: Int
    /// Hunts completed (bonuses earned) in the window.
    public var huntsCompleted: Int
    /// Stops first visited in the window.
    public var stopsVisited: Int
    /// Badges earned in the window.
    public var badges: Int
    /// When the player reached this score (their last scoring event in the window).
    public var reachedAt: Date

    /// An entry from its parts.
    public init(
        rank: Int, playerID: PlayerID, player: String, points: Int, huntsCompleted: Int, stopsVisited: Int,
        badges: Int, reachedAt: Date
    ) {
        self.rank = rank
        self.playerID = playerID
        self.player = player
        self.points = points
        self.huntsCompleted = huntsCompleted
        self.stopsVisited = stopsVisited
        self.badges = badges
        self.reachedAt = reachedAt
    }
}

/// A player's page.
public struct PlayerProfile: Sendable {
    /// How far the player is through one hunt.
    public struct HuntProgress: Sendable {
        /// The hunt's id.
        public var huntID: String
        /// The hunt's name.
        public var name: String
        /// Stops visited.
        public var visited: Int
        /// Stops in the hunt.
        public var total: Int
        /// When the player completed it (earned its bonus), if they did.
        public var completedAt: Date?

        /// Progress from its parts.
        public init(huntID: String, name: String, visited: Int, total: Int, completedAt: Date?) {
            self.huntID = huntID
            self.name = name
            self.visited = visited
            self.total = total
            self.completedAt = completedAt
        }
    }

    /// A badge the player holds, with when and by which check-in.
    public struct EarnedBadge: Sendable {
        /// The badge's id.
        public var id: String
        /// Its name.
        public var name: String
        /// What earns it.
        public var description: String
        /// Points it gave.
        public var points: Int
        /// When it was earned.
        public var earnedAt: Date
        /// The check-in that earned it.
        public var checkInID: Int64

        /// An earned badge from its parts.
        public init(
            id: String, name: String, description: String, points: Int, earnedAt: Date, checkInID: Int64
        ) {
            self.id = id
            self.name = name
            self.description = description
            self.points = points
            self.earnedAt = earnedAt
            self.checkInID = checkInID
        }
    }

    /// One of the player's latest check-ins.
    public struct RecentCheckIn: Sendable {
        /// The check-in's id.
        public var id: Int64
        /// When vsh received it.
        public var receivedAt: Date
        /// The hunt it was decided for, if any.
        public var huntID: String?
        /// The stop it is at, if any.
        public var stopID: String?
        /// The stop's name, if any.
        public var stopName: String?
        /// The current state: accepted, rejected, pending or revoked.
        public var state: CheckInState
        /// Points it earned (stop, bonus and badges).
        public var points: Int
        /// Whether it came with a photo.
        public var hasPhoto: Bool
        /// The reason a moderator gave for their latest decision on it (an approval, a rejection,
        /// a revocation), if one decided it: what the player is told.
        public var reason: String?

        /// A recent check-in from its parts.
        public init(
            id: Int64, receivedAt: Date, huntID: String?, stopID: String?, stopName: String?,
            state: CheckInState,
            points: Int, hasPhoto: Bool = false, reason: String? = nil
        ) {
            self.hasPhoto = hasPhoto
            self.reason = reason
            self.id = id
            self.receivedAt = receivedAt
            self.huntID = huntID
            self.stopID = stopID
            self.stopName = stopName
            self.state = state
            self.points = points
        }
    }

    /// The player's id.
    public var id: PlayerID
    /// The display name.
    public var name: String
    /// When the player registered.
    public var createdAt: Date
    /// Total points.
    public var points: Int
    /// Stops visited.
    public var stopsVisited: Int
    /// Hunts completed.
    public var huntsCompleted: Int
    /// Progress in every hunt, in catalog order.
    public var hunts: [HuntProgress]
    /// Badges earned, oldest first.
    public var badges: [EarnedBadge]
    /// The latest check-ins, newest first.
    public var recent: [RecentCheckIn]
    /// The organisers' adjustments of the player's points, oldest first (`adjusted(by:)`).
    public var adjustments: [Adjustment] = []

    /// A profile from its parts.
    public init(
        id: PlayerID, name: String, createdAt: Date, points: Int, stopsVisited: Int, huntsCompleted: Int,
        hunts: [HuntProgress], badges: [EarnedBadge], recent: [RecentCheckIn]
    ) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.points = points
        self.stopsVisited = stopsVisited
        self.huntsCompleted = huntsCompleted
        self.hunts = hunts
        self.badges = badges
        self.recent = recent
    }
}

/// A stop's place in a player's collage.
public struct CollageTile: Sendable {
    /// The stop's id.
    public var stopID: String
    /// The stop's name.
    public var stopName: String
    /// Whether the player has an accepted check-in here.
    public var visited: Bool
    /// The `PhotoStore` key of the first accepted photo check-in here.
    public var photoFile: String?

    /// A tile from its parts.
    public init(stopID: String, stopName: String, visited: Bool, photoFile: String?) {
        self.stopID = stopID
        self.stopName = stopName
        self.visited = visited
        self.photoFile = photoFile
    }
}

/// A hunt's stops as one player's collage shows them.
public struct CollagePlan: Sendable {
    /// The hunt's name.
    public var huntName: String
    /// The hunt's stops, in order.
    public var tiles: [CollageTile]
    /// Whether the player completed the hunt.
    public var complete: Bool

    /// A plan from its parts.
    public init(huntName: String, tiles: [CollageTile], complete: Bool) {
        self.huntName = huntName
        self.tiles = tiles
        self.complete = complete
    }
}

/// Scores: derived from accepted check-ins (`Scoring`), read as boards and profiles.
public protocol ScoreStore: Sendable {
    /// Rankings from the players' score events, listed by points, then by who reached
    /// that score first; equal points share a rank (`Ranking.competition`).
    /// - Throws: `LeagueError.unknownHunt` for a hunt that does not exist.
    func leaderboard(_ query: LeaderboardQuery) async throws -> [LeaderboardEntry]

    /// A player's totals, per-hunt progress, badges with dates, and `recent` latest check-ins: every
    /// one of them, or with `acceptedOnly` only the accepted (what others may see of a player).
    func profile(player: PlayerID, recent: Int, acceptedOnly: Bool) async throws -> PlayerProfile

    /// Every stop of a hunt, in order, with the player's first accepted photo there.
    func collagePlan(player: PlayerID, hunt huntID: String) async throws -> CollagePlan

    /// Recomputes every player's points, completions and badges from the check-ins.
    func rescoreEveryone() async throws

    /// What players hold from a hunt (every point earned there: stops, bonus, badges) or from
    /// one of its stops (its stop points): what removing it would take from them.
    func pointsHeld(hunt huntID: String, stop stopID: String?) async throws -> PointsHeld
}

/// Players and the points they hold from a hunt or a stop.
public struct PointsHeld: Equatable, Sendable {
    /// Players holding any.
    public var players: Int
    /// Their points, all together.
    public var points: Int

    /// Holdings from their parts.
    public init(players: Int, points: Int) {
        self.players = players
        self.points = points
    }
}

extension ScoreStore {
    /// The leaderboard for one hunt or all, in a window [since, until), at most `limit` rows.
    public func leaderboard(huntID: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int? = nil)
        async throws -> [LeaderboardEntry]
    {
        try await leaderboard(LeaderboardQuery(huntID: huntID, since: since, until: until, limit: limit))
    }
}

extension ScoreStore {
    /// A player's profile with all their latest check-ins (their own view, and the command line's).
    public func profile(player: PlayerID, recent: Int) async throws -> PlayerProfile {
        try await profile(player: player, recent: recent, acceptedOnly: false)
    }
}
