public import Foundation

/// A team of a hunt: players who play it together. On a `teams` or `either` hunt a stop, the
/// completion bonus and a badge count once for the team, from its members' accepted check-ins.
public struct Team: Sendable, Equatable {
    /// Its number.
    public var id: Int64
    /// The hunt it plays.
    public var huntID: String
    /// The name players see.
    public var name: String
    /// The code players join it with: a secret of its members and the organisers.
    public var joinCode: String
    /// When it was made.
    public var createdAt: Date

    /// The longest team name, in characters.
    public static let maxNameLength = 40

    /// A team from its parts.
    public init(id: Int64, huntID: String, name: String, joinCode: String, createdAt: Date) {
        self.id = id
        self.huntID = huntID
        self.name = name
        self.joinCode = joinCode
        self.createdAt = createdAt
    }

    /// A team name as typed, trimmed, with runs of white space made one space; nil, with the
    /// problem in words, when it is empty, too long, or holds control characters.
    public static func name(_ raw: String) -> Result<String, TeamNameProblem> {
        let words = raw.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !words.isEmpty else { return .failure(TeamNameProblem(reason: "is empty")) }
        guard words.count <= maxNameLength else {
            return .failure(TeamNameProblem(reason: "is longer than \(maxNameLength) characters"))
        }
        guard
            !words.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            })
        else { return .failure(TeamNameProblem(reason: "holds control characters")) }
        return .success(words)
    }

    /// The key two team names of a hunt may not share (case and accents folded).
    public static func nameKey(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}

/// Why a team name was refused.
public struct TeamNameProblem: Error, Sendable, Equatable {
    /// The problem, after "The team name ".
    public var reason: String
}

/// A member of a team.
public struct TeamMember: Sendable, Equatable {
    /// The player.
    public var player: PlayerID
    /// Their name.
    public var name: String
    /// When they joined the team.
    public var joinedAt: Date

    /// A member from its parts.
    public init(player: PlayerID, name: String, joinedAt: Date) {
        self.player = player
        self.name = name
        self.joinedAt = joinedAt
    }
}

/// What joining a team came to.
public enum TeamJoining: Sendable, Equatable {
    /// The player is on the team now (moved from another team of the hunt when they were on one).
    case joined
    /// The player was on it already.
    case already
    /// The team has `max_team_size` members.
    case full
}

/// A check-in as a team's score sees it: an accepted check-in of a member, recorded with the team.
public struct TeamCheckIn: Sendable {
    /// The team it counted for.
    public var team: Int64
    /// Whose it is.
    public var player: PlayerID
    /// The check-in.
    public var checkIn: ScoredCheckIn

    /// A team check-in from its parts.
    public init(team: Int64, player: PlayerID, checkIn: ScoredCheckIn) {
        self.team = team
        self.player = player
        self.checkIn = checkIn
    }
}

/// Teams, their members, and the check-ins recorded with them.
public protocol TeamStore: Sendable {
    /// Makes a team of a hunt; with `founder`, that player is its first member (leaving any other
    /// team of the hunt). - Throws: `LeagueError.teamNameTaken` when the hunt has a team of that name.
    func createTeam(huntID: String, name: String, joinCode: String, founder: PlayerID?, at now: Date)
        async throws -> Team
    /// The team with this id, or nil.
    func team(id: Int64) async throws -> Team?
    /// The team with this join code, or nil.
    func team(joinCode: String) async throws -> Team?
    /// A hunt's teams, in the order they were made.
    func teams(huntID: String) async throws -> [Team]
    /// A team's members, in the order they joined.
    func members(team: Int64) async throws -> [TeamMember]
    /// The members of every team of a hunt, by team id, each team's in the order they joined (one
    /// read for a board, instead of one a team).
    func members(huntID: String) async throws -> [Int64: [TeamMember]]
    /// The player's team on a hunt, or nil.
    func team(of player: PlayerID, huntID: String) async throws -> Team?
    /// Puts a player on a team, leaving their other team of the hunt, unless the team has
    /// `maxSize` members (checked in the same transaction).
    func joinTeam(_ team: Int64, player: PlayerID, maxSize: Int?, at now: Date) async throws -> TeamJoining
    /// Takes a player off a team; false when they were not on it.
    func leaveTeam(_ team: Int64, player: PlayerID) async throws -> Bool
    /// The accepted check-ins of a hunt recorded with a team (with `team`, that team's only), any
    /// order.
    func teamCheckIns(huntID: String, team: Int64?) async throws -> [TeamCheckIn]
    /// A team's rank on its hunt's board with `points`: one more than the number of the hunt's
    /// teams with more points (adjustments counted), from the running totals.
    func teamRank(huntID: String, points: Int) async throws -> Int
    /// The best `limit` rows of a hunt's team board (every team's when nil) in the board's order
    /// with their ranks, as `TeamBoard.standings` makes them, from the teams' running totals
    /// (`TeamTotals`) and the organisers' adjustments; the rows' visits are left empty.
    func teamBoard(huntID: String, limit: Int?) async throws -> [TeamStanding]
}

extension TeamStore {
    /// The accepted check-ins of a hunt recorded with a team, any order.
    public func teamCheckIns(huntID: String) async throws -> [TeamCheckIn] {
        try await teamCheckIns(huntID: huntID, team: nil)
    }
}
