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
        let scoring = [ScoringHunt(hunt)]
        let teamBadges = teamBadges(badges)
        let byTeam = Dictionary(grouping: checkIns.filter { $0.checkIn.huntID == hunt.id }, by: \.team)
        var rows: [TeamStanding] = teams.map { team in
            let own = byTeam[team.id] ?? []
            let events = Scoring.events(for: own.map(\.checkIn), hunts: scoring, badges: teamBadges)
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
        rows.sort {
            if $0.points != $1.points { return $0.points > $1.points }
            let a = $0.reachedAt ?? .distantFuture
            let b = $1.reachedAt ?? .distantFuture
            if a != b { return a < b }
            return ($0.team.name, $0.team.id) < ($1.team.name, $1.team.id)
        }
        for (index, rank) in Ranking.competition(points: rows.map(\.points)).enumerated() {
            rows[index].rank = rank
        }
        return rows
    }
}
