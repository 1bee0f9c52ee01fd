/// Where a check-in stands now: the verifier's verdict, until a moderator decides over it (the
/// latest decision wins). Both SQL schemas follow this definition (their `checkin_state` views),
/// and each adapter writes the conditions below once, from these cases (`CheckInStateSQL` in
/// each). A rejection a moderator overturns stays rejected; the overturn records the evidence
/// again as a new check-in, accepted, that names the rejected one (`overturns`).
public enum CheckInState: String, Sendable, CaseIterable, Codable {
    /// It counts: points, stops visited, completions and badges.
    case accepted
    /// It waits for a moderator.
    case pending
    /// The verifier or a moderator refused it; it counts for nothing.
    case rejected
    /// A moderator withdrew it after it was accepted; what it earned went with it.
    case revoked

    /// The state of a check-in with `verdict` after the moderators' `latestDecision`, if any.
    public init(verdict: Verdict, latestDecision: ReviewDecision?) {
        switch latestDecision {
        case .approved: self = .accepted
        case .rejected: self = .rejected
        case .revoked: self = .revoked
        case nil: self = CheckInState(rawValue: verdict.rawValue)!
        }
    }

    /// The state of a check-in just recorded with `verdict`, before any moderator decides.
    public init(_ verdict: Verdict) { self.init(verdict: verdict, latestDecision: nil) }

    /// It earns points and is what boards, profiles and badges read.
    public var counts: Bool { self == .accepted }

    /// It stands in the player's history that the rules read (travel speed, stop order, first
    /// visit): accepted, or waiting and so perhaps accepted later.
    public var isLive: Bool { self == .accepted || self == .pending }

    /// It still holds its photo: a later check-in with the same photo (or pixels) is a reuse.
    /// Only a rejection releases a photo; a revoked check-in keeps it spent.
    public var holdsItsPhoto: Bool { self != .rejected }

    /// The verdicts a check-in can have had to be live or to count now (a rejected verdict never
    /// is: overturning one records a new check-in). Stores index these to skip a player's rejected
    /// submissions, however many they sent.
    public static let verdictsThatCanCount: [Verdict] = [.accepted, .pending]

    /// The states for which `property` holds, in declaration order.
    public static func all(_ property: (CheckInState) -> Bool) -> [CheckInState] {
        allCases.filter(property)
    }
}
