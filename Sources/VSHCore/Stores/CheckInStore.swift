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
    public var state: CheckInState
    /// The archived photo's key in the `PhotoStore`, if the check-in had a photo.
    public var photoFile: String?
    /// Hunt bonuses and badges this check-in earned (stop points are in `decision.points`).
    public var awards: [ScoreEvent]
    /// The decision's rules as compact JSON (`RuleResult.compactText(decision.rules)`), when
    /// the store made that text for the check-in's row: an answer writes it as it is.
    public var rulesText: String?

    /// A recorded check-in from its parts.
    public init(
        id: Int64, playerID: PlayerID, player: String, receivedAt: Date, source: FixSource,
        decision: Decision,
        state: CheckInState, photoFile: String?, awards: [ScoreEvent] = []
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

    /// Decides and records requests in one transaction (one durable commit: the service's group
    /// commit), in order, each with the facts as they stand after the ones before it. A request
    /// whose retry key its player already used records nothing and gets the first answer.
    /// - Throws: `LeagueError` for an unknown player (nothing of the group is written).
    func recordGroup(_ requests: [CheckInRequest], decide: @escaping CheckInDecider) async throws
        -> [CheckInOutcome]

    /// The answer kept under a player's retry key, if any.
    func idempotentAnswer(player: PlayerID, key: String) async throws -> IdempotentAnswer?

    /// How many `recordGroup` transactions may run at once: 1 where the database has one writer
    /// (SQLite); more where each group locks only its own players and photos (PostgreSQL).
    var concurrentGroups: Int { get }

    /// The priority group commit decides and writes groups at, or nil for the priority of the
    /// requests waiting for them. A store whose group is a few hops to a writer of its own (SQLite's
    /// queue, an actor) says `.high`, so that the one serial stage does not wait in Swift's queue
    /// behind the requests' tasks; one whose group awaits the network at every statement
    /// (PostgreSQL) keeps the requests' priority, as its work would otherwise crowd theirs out.
    var groupPriority: TaskPriority? { get }
}

extension CheckInStore {
    /// One group at a time, unless the store says otherwise.
    public var concurrentGroups: Int { 1 }
    /// The requests' priority, unless the store says otherwise.
    public var groupPriority: TaskPriority? { nil }
}

/// A client's retry key for one check-in (`Idempotency-Key`): the first answer is kept with the
/// check-in it recorded, in the same transaction, so a retry gets that answer and records nothing.
public struct IdempotencyClaim: Sendable {
    /// The client's key (unique per player).
    public var key: String
    /// A digest of what the request carried: a key reused for a different check-in is refused.
    public var fingerprint: String
    /// The answer to keep, made from the recorded check-in.
    public var answer: @Sendable (RecordedCheckIn) -> String

    /// A claim from its parts.
    public init(key: String, fingerprint: String, answer: @escaping @Sendable (RecordedCheckIn) -> String) {
        self.key = key
        self.fingerprint = fingerprint
        self.answer = answer
    }
}

/// A first answer kept under an idempotency key.
public struct IdempotentAnswer: Sendable, Equatable {
    /// The check-in it recorded.
    public var checkInID: Int64
    /// The digest of the request that made it.
    public var fingerprint: String
    /// The answer, as first given.
    public var answer: String

    /// An answer from its parts.
    public init(checkInID: Int64, fingerprint: String, answer: String) {
        self.checkInID = checkInID
        self.fingerprint = fingerprint
        self.answer = answer
    }
}

/// One check-in of a group commit: a submission, its stored photo, and an optional retry key.
public struct CheckInRequest: Sendable {
    /// What arrived.
    public var submission: Submission
    /// The archived photo's key, if any.
    public var photoFile: String?
    /// The retry key, if the client sent one.
    public var idempotency: IdempotencyClaim?

    /// A request from its parts.
    public init(submission: Submission, photoFile: String?, idempotency: IdempotencyClaim? = nil) {
        self.submission = submission
        self.photoFile = photoFile
        self.idempotency = idempotency
    }
}

/// What became of one request of a group commit.
public enum CheckInOutcome: Sendable {
    /// Decided and recorded now; `answer` is what was kept under its retry key, if it had one.
    case recorded(RecordedCheckIn, answer: String?)
    /// Its retry key was already used (by an earlier request or one earlier in the same group):
    /// nothing recorded, the first answer.
    case repeated(IdempotentAnswer)
}
