/// A badge: earned once, when its rule first holds after an accepted check-in.
public struct Badge: Hashable, Sendable {
    /// The badge's id (`first-roll`).
    public var id: String
    /// The name players see.
    public var name: String
    /// What earns it, in words.
    public var description: String
    /// Points the badge adds when earned.
    public var points: Int
    /// The rule that awards it.
    public var rule: Rule

    /// A badge from its fields.
    public init(id: String, name: String, description: String = "", points: Int = 0, rule: Rule) {
        self.id = id
        self.name = name
        self.description = description
        self.points = points
        self.rule = rule
    }

    /// What earns the badge (`hunts/badges.json`, `"rule": {"kind": ...}`).
    public enum Rule: Hashable, Sendable {
        /// The first accepted check-in.
        case firstCheckIn
        /// `count` different stops visited.
        case stopsVisited(count: Int)
        /// `count` hunts completed.
        case huntsCompleted(count: Int)
        /// One given hunt completed.
        case huntCompleted(huntID: String)
        /// Every hunt of a difficulty completed (there must be at least one).
        case difficultyCompleted(Hunt.Difficulty)
        /// `count` check-ins whose local time (in the hunt's time zone) falls in
        /// [from, to); a window may wrap midnight (22:00-04:00). Minutes after midnight.
        case timeWindow(fromMinute: Int, toMinute: Int, count: Int)
        /// `count` different stops first visited within `hours` hours.
        case stopsWithin(count: Int, hours: Double)
        /// Check-ins on `days` consecutive local days.
        case consecutiveDays(days: Int)

        /// The rule kind as `badges.json` names it.
        public var kind: String {
            switch self {
            case .firstCheckIn: return "first_checkin"
            case .stopsVisited: return "stops_visited"
            case .huntsCompleted: return "hunts_completed"
            case .huntCompleted: return "hunt_completed"
            case .difficultyCompleted: return "difficulty_completed"
            case .timeWindow: return "time_window"
            case .stopsWithin: return "stops_within"
            case .consecutiveDays: return "consecutive_days"
            }
        }
    }
}
