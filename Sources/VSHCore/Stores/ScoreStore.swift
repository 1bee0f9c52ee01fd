public import Foundation

/// Which leaderboard: all hunts or one, all time or a window [since, until) on the
/// time the points were earned, and how many rows.
public struct LeaderboardQuery: Hashable, Sendable {
    public var huntID: String?
    public var since: Date?
    public var until: Date?
    public var limit: Int?

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
    public var playerID: PlayerID
    public var player: String
    public var points: Int
    public var huntsCompleted: Int
    public var stopsVisited: Int
    public var badges: Int
    /// When the player reached this score (their last scoring event in the window).
    public var reachedAt: Date

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
        public var huntID: String
        public var name: String
        public var visited: Int
        public var total: Int
        public var completedAt: Date?

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
        public var id: String
        public var name: String
        public var description: String
        public var points: Int
        public var earnedAt: Date
        public var checkInID: Int64

        public init(id: String, name: String, description: String, points: Int, earnedAt: Date, checkInID: Int64) {
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
        public var id: Int64
        public var receivedAt: Date
        public var huntID: String?
        public var stopID: String?
        public var stopName: String?
        /// The current state: accepted, rejected, pending or revoked.
        public var state: String
        public var points: Int

        public init(
            id: Int64, receivedAt: Date, huntID: String?, stopID: String?, stopName: String?, state: String,
            points: Int
        ) {
            self.id = id
            self.receivedAt = receivedAt
            self.huntID = huntID
            self.stopID = stopID
            self.stopName = stopName
            self.state = state
            self.points = points
        }
    }

    public var id: PlayerID
    public var name: String
    public var createdAt: Date
    public var points: Int
    public var stopsVisited: Int
    public var huntsCompleted: Int
    public var hunts: [HuntProgress]
    public var badges: [EarnedBadge]
    public var recent: [RecentCheckIn]

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
    public var stopID: String
    public var stopName: String
    /// Whether the player has an accepted check-in here.
    public var visited: Bool
    /// The `PhotoStore` key of the first accepted photo check-in here.
    public var photoFile: String?

    public init(stopID: String, stopName: String, visited: Bool, photoFile: String?) {
        self.stopID = stopID
        self.stopName = stopName
        self.visited = visited
        self.photoFile = photoFile
    }
}

/// A hunt's stops as one player's collage shows them.
public struct CollagePlan: Sendable {
    public var huntName: String
    public var tiles: [CollageTile]
    /// Whether the player completed the hunt.
    public var complete: Bool

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

    /// A player's totals, per-hunt progress, badges with dates, and `recent` latest check-ins.
    func profile(player: PlayerID, recent: Int) async throws -> PlayerProfile

    /// Every stop of a hunt, in order, with the player's first accepted photo there.
    func collagePlan(player: PlayerID, hunt huntID: String) async throws -> CollagePlan

    /// Recomputes every player's points, completions and badges from the check-ins.
    func rescoreEveryone() async throws
}

extension ScoreStore {
    /// The leaderboard for one hunt or all, in a window [since, until), at most `limit` rows.
    public func leaderboard(huntID: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int? = nil)
        async throws -> [LeaderboardEntry]
    {
        try await leaderboard(LeaderboardQuery(huntID: huntID, since: since, until: until, limit: limit))
    }
}
