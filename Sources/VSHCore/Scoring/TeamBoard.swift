public import Foundation

/// A team's row on a hunt's team board.
public struct TeamStanding: Sendable, Equatable {
    /// Competition ranking, as the players' boards (`Ranking`).
    public var rank: Int
    /// The team.
    public var team: Team
    /// Its members' names, in the order they joined.
    public var members: [String]
    /// Points: each stop once, the completion bonus once, team badges, and the organisers'
    /// adjustments.
    public var points: Int
    /// The organisers' adjustments among the points.
    public var adjustments: Int
    /// Stops the team visited.
    public var stopsVisited: Int
    /// Whether the team completed the hunt (earned its bonus).
    public var completed: Bool
    /// The team's badges, by id.
    public var badges: [String]
    /// When the team reached its score (nil: no points yet).
    public var reachedAt: Date?
    /// Each stop the team visited: who got there first and when.
    public var visits: [String: (player: String, at: Date)]

    /// A row from its parts.
    public init(
        rank: Int, team: Team, members: [String], points: Int, adjustments: Int, stopsVisited: Int,
        completed: Bool, badges: [String], reachedAt: Date?, visits: [String: (player: String, at: Date)]
    ) {
        self.rank = rank
        self.team = team
        self.members = members
        self.points = points
        self.adjustments = adjustments
        self.stopsVisited = stopsVisited
        self.completed = completed
        self.badges = badges
        self.reachedAt = reachedAt
        self.visits = visits
    }

    /// Rows are equal when everything but the visits' details is (a tuple is not `Equatable`).
    public static func == (a: TeamStanding, b: TeamStanding) -> Bool {
        a.rank == b.rank && a.team == b.team && a.members == b.members && a.points == b.points
            && a.adjustments == b.adjustments
            && a.stopsVisited == b.stopsVisited && a.completed == b.completed && a.badges == b.badges
            && a.reachedAt == b.reachedAt
    }
}

/// The team board of a hunt, derived from its members' accepted check-ins recorded with their
/// team: the same scoring as a player's (`Scoring.events`), with the team as the player, so a stop
/// and the bonus count once a team, at its first accepted visit.
public enum TeamBoard {
    /// The badges that mean something for a team of one hunt: not those that count hunts across
    /// the league (`hunts_completed`, `difficulty_completed`).
    public static func teamBadges(_ badges: [Badge]) -> [Badge] {
        badges.filter {
            switch $0.rule {
            case .huntsCompleted, .difficultyCompleted: return false
            default: return true
            }
        }
    }

    /// The standings of a hunt's teams, best first (points, then who got there first, then name).
    public static func standings(
        hunt: Hunt, teams: [Team], members: [Int64: [TeamMember]], checkIns: [TeamCheckIn], badges: [Badge],
        adjustments: [Adjustment] = []
    ) -> [TeamStanding] {
        var adjusted: [Int64: Int] = [:]
        for a in adjustments where a.huntID == hunt.id {
            if case .team(let id) = a.subject { adjusted[id, default: 0] += a.points }
        }
        let scoring = ScoringHunt(hunt)
        let teamBadges = teamBadges(badges)
        let byTeam = Dictionary(grouping: checkIns.filter { $0.checkIn.huntID == hunt.id }, by: \.team)
        var rows: [TeamStanding] = teams.map { team in
            let own = byTeam[team.id] ?? []
            let events = Self.events(own.map(\.checkIn), hunt: scoring, teamBadges: teamBadges)
            let names = (members[team.id] ?? []).map(\.name)
            var visits: [String: (player: String, at: Date)] = [:]
            let owners = Dictionary(own.map { ($0.checkIn.id, $0.player) }, uniquingKeysWith: { a, _ in a })
            let nameOf = Dictionary(
                (members[team.id] ?? []).map { ($0.player, $0.name) }, uniquingKeysWith: { a, _ in a })
            for event in events where event.kind == .stop {
                guard let stop = event.stopID else { continue }
                let player = owners[event.checkInID].flatMap { nameOf[$0] } ?? "a former member"
                visits[stop] = (player, event.at)
            }
            return TeamStanding(
                rank: 0, team: team, members: names,
                points: events.reduce(0) { $0 + $1.points } + adjusted[team.id, default: 0],
                adjustments: adjusted[team.id, default: 0],
                stopsVisited: events.filter { $0.kind == .stop }.count,
                completed: events.contains { $0.kind == .bonus },
                badges: events.compactMap(\.badgeID), reachedAt: events.map(\.at).max(), visits: visits)
        }
        rows.sort(by: ordered)
        return ranked(rows)
    }

    /// The board's order: points, then who got there first (no points yet: last), then name and id.
    public static func ordered(_ a: TeamStanding, _ b: TeamStanding) -> Bool {
        if a.points != b.points { return a.points > b.points }
        let x = a.reachedAt ?? .distantFuture
        let y = b.reachedAt ?? .distantFuture
        if x != y { return x < y }
        return (a.team.name, a.team.id) < (b.team.name, b.team.id)
    }

    /// Rows in the board's order, from its top, with their competition ranks.
    public static func ranked(_ rows: [TeamStanding]) -> [TeamStanding] {
        var rows = rows
        for (index, rank) in Ranking.competition(points: rows.map(\.points)).enumerated() {
            rows[index].rank = rank
        }
        return rows
    }

    /// A team's score events from its members' accepted check-ins recorded with it, scored as a
    /// player's are, with the team's badges (`teamBadges`) only.
    static func events(_ checkIns: [ScoredCheckIn], hunt: ScoringHunt, teamBadges: [Badge]) -> [ScoreEvent] {
        Scoring.events(for: checkIns.filter { $0.huntID == hunt.id }, hunts: [hunt], badges: teamBadges)
    }

    /// A team's running totals (the stores' `team_scores`, which the board reads) from its
    /// members' accepted check-ins recorded with it; nil when they earn nothing.
    public static func totals(_ checkIns: [ScoredCheckIn], hunt: ScoringHunt, badges: [Badge]) -> TeamTotals?
    {
        let events = events(checkIns, hunt: hunt, teamBadges: teamBadges(badges))
        guard let reached = events.map(\.at.timeIntervalSince1970).max() else { return nil }
        return TeamTotals(
            points: events.reduce(0) { $0 + $1.points }, stops: events.filter { $0.kind == .stop }.count,
            completed: events.contains { $0.kind == .bonus }, badges: events.compactMap(\.badgeID),
            reached: reached)
    }
}

/// A team's running totals in its hunt, kept by the stores with its members' score events (in the
/// same transaction) so that a team board reads its top rows instead of scoring every team.
public struct TeamTotals: Sendable, Equatable {
    /// Points earned, without the organisers' adjustments.
    public var points: Int
    /// Stops visited.
    public var stops: Int
    /// Whether the team earned the completion bonus.
    public var completed: Bool
    /// Badges earned, by id, in the order they were earned.
    public var badges: [String]
    /// When the last event was earned (epoch seconds).
    public var reached: Double

    /// Totals from their values.
    public init(points: Int, stops: Int, completed: Bool, badges: [String], reached: Double) {
        self.points = points
        self.stops = stops
        self.completed = completed
        self.badges = badges
        self.reached = reached
    }

    /// The badges as one column keeps them: ids joined by newlines (an id holds none).
    public var badgeColumn: String { badges.joined(separator: "\n") }

    /// Badge ids from `badgeColumn`.
    public static func badges(column: String) -> [String] {
        column.split(separator: "\n").map(String.init)
    }
}
