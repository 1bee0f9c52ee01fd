public import Foundation

/// A check-in as recorded.
public struct RecordedCheckIn: Sendable {
    /// The check-in's id (the audit trail's, never reused).
    public var id: Int64
    /// The player's id.
    public var playerID: PlayerID
    /// The player's display name.
    public var player: String
    /// When vsh received it.
    public var receivedAt: Date
    /// Where the fix came from.
    public var source: FixSource
    /// The verifier's decision.
    public var decision: Decision
    /// The current state: the verdict, or what a moderator decided since.
    public var state: String
    /// The archived photo's key in the `PhotoStore`, if the check-in had a photo.
    public var photoFile: String?
    /// Hunt bonuses and badges this check-in earned (stop points are in `decision.points`).
    public var awards: [ScoreEvent]

    /// A recorded check-in from its parts.
    public init(
        id: Int64, playerID: PlayerID, player: String, receivedAt: Date, source: FixSource,
        decision: Decision,
        state: String, photoFile: String?, awards: [ScoreEvent] = []
    ) {
        self.id = id
        self.playerID = playerID
        self.player = player
        self.receivedAt = receivedAt
        self.source = source
        self.decision = decision
        self.state = state
        self.photoFile = photoFile
        self.awards = awards
    }
}

/// The decision function a store runs inside the recording transaction (the `Verifier`'s rules).
public typealias CheckInDecider = @Sendable (Submission, CheckInFacts) -> Decision

/// Check-ins: decided and recorded atomically, so concurrent submissions are serialised.
public protocol CheckInStore: Sendable {
    /// Decides and records a submission in one transaction: the facts (`CheckInFacts.gather`)
    /// are read, `decide` runs, the check-in is inserted and the player rescored, while other
    /// writers wait. Two submissions of one photo at the same moment therefore see each other.
    /// - Throws: `LeagueError` for an unknown player or hunt (nothing is written).
    func record(_ submission: Submission, photoFile: String?, decide: @escaping CheckInDecider) async throws
        -> RecordedCheckIn

    /// Decides and records many submissions in one transaction (one durable commit), each
    /// with the facts as they stand after the ones before it; results in input order.
    func recordBatch(
        _ submissions: [(submission: Submission, photoFile: String?)], decide: @escaping CheckInDecider
    )
        async throws -> [RecordedCheckIn]

    /// The stops of a hunt the player has an accepted check-in at.
    func visitedStops(player: PlayerID, hunt huntID: String) async throws -> Set<String>
}
