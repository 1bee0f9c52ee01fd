public import Foundation

/// A check-in waiting for a moderator.
public struct PendingCheckIn: Sendable {
    /// The check-in's id.
    public var id: Int64
    /// The player's id.
    public var playerID: PlayerID
    /// The player's display name.
    public var player: String
    /// When vsh received it.
    public var receivedAt: Date
    /// The hunt it was decided for, if any.
    public var huntID: String?
    /// The stop it is at, if any.
    public var stopID: String?
    /// The stop's name, if any.
    public var stopName: String?
    /// The rules that asked for review, with their details.
    public var reasons: [String]
    /// The archived photo's key in the `PhotoStore`, if any.
    public var photoFile: String?
    /// Where the check-in placed the player (the device fix, or the photo's GPS), if anywhere.
    public var position: Coordinate?
    /// The fix's accuracy in metres, if it had one.
    public var accuracyMeters: Double?
    /// When the fix was taken (the photo's or the device's time), if known: with `receivedAt`, how
    /// late the check-in arrived (a phone that was offline sends it later).
    public var fixTime: Date?

    /// A pending check-in from its parts.
    public init(
        id: Int64, playerID: PlayerID, player: String, receivedAt: Date, huntID: String?, stopID: String?,
        stopName: String?, reasons: [String], photoFile: String?, position: Coordinate? = nil,
        accuracyMeters: Double? = nil, fixTime: Date? = nil
    ) {
        self.fixTime = fixTime
        self.id = id
        self.playerID = playerID
        self.player = player
        self.receivedAt = receivedAt
        self.huntID = huntID
        self.stopID = stopID
        self.stopName = stopName
        self.reasons = reasons
        self.photoFile = photoFile
        self.position = position
        self.accuracyMeters = accuracyMeters
    }
}

/// A recorded check-in as it was submitted, for a moderator's approval to decide it again.
public struct ReviewSubject: Sendable {
    /// The check-in's id.
    public var id: Int64
    /// The player's id.
    public var playerID: PlayerID
    /// When vsh received it.
    public var receivedAt: Date
    /// A photo (with or without the device's fix), a device fix, or a replayed walk.
    public var source: FixSource
    /// The hunt it was decided for, if any.
    public var huntID: String?
    /// The position that placed the player, if any.
    public var position: Coordinate?
    /// Its accuracy in metres, if known.
    public var accuracyMeters: Double?
    /// The fix's time, if known.
    public var fixTime: Date?
    /// The archived photo's key, if any.
    public var photoFile: String?
    /// Its state now: accepted, rejected, pending or revoked.
    public var state: CheckInState
    /// The rules that failed when it was recorded (what a rejection is about).
    public var failedRules: [Rule]
    /// Whether the stop's code passed when it was recorded: the code is not kept, so deciding the
    /// check-in again takes that result as it was.
    public var codeChecked = false
    /// Whether the answer to the stop's question was right when it was recorded (nil: none was
    /// judged): answers are not kept either.
    public var answerChecked: Bool?

    /// A subject from its parts.
    public init(
        id: Int64, playerID: PlayerID, receivedAt: Date, source: FixSource, huntID: String?,
        position: Coordinate?, accuracyMeters: Double?, fixTime: Date?, photoFile: String?,
        state: CheckInState,
        failedRules: [Rule] = []
    ) {
        self.failedRules = failedRules
        self.id = id
        self.playerID = playerID
        self.receivedAt = receivedAt
        self.source = source
        self.huntID = huntID
        self.position = position
        self.accuracyMeters = accuracyMeters
        self.fixTime = fixTime
        self.photoFile = photoFile
        self.state = state
    }
}

/// Whose a check-in is and which photo it holds: enough to decide who may see the photo.
public struct CheckInPhoto: Sendable, Equatable {
    /// The player who sent it.
    public var playerID: PlayerID
    /// The archived photo's key in the `PhotoStore`, or nil for a check-in without a photo.
    public var photoFile: String?

    /// A check-in's photo record from its parts.
    public init(playerID: PlayerID, photoFile: String?) {
        self.playerID = playerID
        self.photoFile = photoFile
    }
}

/// A moderator's decision on a check-in.
public enum ReviewDecision: String, Sendable, CaseIterable {
    /// A pending check-in is accepted.
    case approved
    /// A pending check-in is rejected.
    case rejected
    /// An accepted check-in is withdrawn (points, completions and badges it earned go with it).
    case revoked

    /// The state a check-in must be in for this decision.
    public var requiredState: CheckInState { self == .revoked ? .accepted : .pending }
}

/// What a moderator's decision did.
public struct ReviewOutcome: Sendable {
    /// The check-in's id.
    public var checkInID: Int64
    /// The player's id.
    public var playerID: PlayerID
    /// The player's display name.
    public var player: String
    /// The check-in's state after the decision.
    public var state: CheckInState
    /// What the player's total points changed by (negative for a revocation): not the
    /// check-in's own points, since a badge or a bonus may move between check-ins.
    public var pointsChange: Int
    /// The player's total points after the decision.
    public var playerPoints: Int
    /// For an overturned rejection: the check-in that records it accepted (the rejected one
    /// stays as it was); `state` is then that check-in's.
    public var recordedAs: Int64?

    /// An outcome from its parts.
    public init(
        checkInID: Int64, playerID: PlayerID, player: String, state: CheckInState, pointsChange: Int,
        playerPoints: Int, recordedAs: Int64? = nil
    ) {
        self.recordedAs = recordedAs
        self.checkInID = checkInID
        self.playerID = playerID
        self.player = player
        self.state = state
        self.pointsChange = pointsChange
        self.playerPoints = playerPoints
    }
}

/// The longest reason a moderator may give, in characters.
public let maxReviewReasonLength = 500

/// Moderation: the review queue and append-only decisions.
public protocol ReviewStore: Sendable {
    /// Check-ins whose state is still pending, oldest first.
    func pendingCheckIns() async throws -> [PendingCheckIn]

    /// The player and photo of check-in `id`, or nil when there is no such check-in.
    func photo(ofCheckIn id: Int64) async throws -> CheckInPhoto?

    /// Check-in `id` as it was submitted, or nil when there is no such check-in.
    func reviewSubject(_ id: Int64) async throws -> ReviewSubject?

    /// The facts the rules would see for `submission` now (read only; `submission.recheckOf`
    /// leaves the check-in being decided again out of its own history).
    func facts(for submission: Submission) async throws -> CheckInFacts

    /// Records a moderator's decision (append-only: a review row decides the check-in's
    /// state) and rescores the player. Approve and reject take a pending check-in;
    /// revoke takes an accepted one.
    /// - Throws: `LeagueError` when there is no such check-in, it is in the wrong state,
    ///   or the reason is empty or too long.
    func review(_ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date)
        async throws
        -> ReviewOutcome

    /// Overturns rejected check-in `id` in one transaction: `submission` (its evidence, with
    /// `recheckOf` = `id`) is decided by `decide` against the check-ins known now and recorded as
    /// a new check-in that names `id` in `overturns`, approved by `moderator` with `reason`, and the
    /// player is rescored. Check-ins are append-only: the rejected one stays as it was, and the
    /// rules' history and scoring read the new one like any other. A rejection is overturned once.
    /// - Throws: `LeagueError` when there is no such check-in, it is not rejected, it was already
    ///   overturned, or the reason is empty or too long (nothing is written).
    func overturn(
        _ id: Int64, as submission: Submission, photoFile: String?, decide: @escaping CheckInDecider,
        reason: String, moderator: String, at now: Date
    ) async throws -> ReviewOutcome
}

extension ReviewDecision {
    /// The reason trimmed, or the `LeagueError` that refuses it.
    public static func validReason(_ reason: String) throws(LeagueError) -> String {
        let trimmed = reason.trimmingSpaces()
        guard !trimmed.isEmpty else { throw .missingReason }
        guard trimmed.count <= maxReviewReasonLength else {
            throw .reasonTooLong(limit: maxReviewReasonLength)
        }
        return trimmed
    }
}

extension Decision {
    /// This decision as the pending check-in a moderator's approval of an overturn turns accepted:
    /// the rules' results are kept for the audit trail; points come from the approval's rescore.
    public var awaitingApproval: Decision {
        Decision(verdict: .pending, rules: rules, hunt: hunt, stop: stop, points: 0, fix: fix)
    }
}

extension ReviewSubject {
    /// Whether `rule` passed, in a check-in's stored rules JSON.
    public static func passed(_ rule: Rule, rulesJSON: String) -> Bool {
        guard case .array(let rules)? = try? JSONValue.parse(rulesJSON) else { return false }
        return rules.contains { entry in
            guard case .object(let fields) = entry else { return false }
            return fields["rule"] == .string(rule.rawValue) && fields["result"] == .string("passed")
        }
    }

    /// The rules whose stored result (rules JSON) is `failed`.
    public static func failedRules(rulesJSON: String) -> [Rule] {
        guard case .array(let rules)? = try? JSONValue.parse(rulesJSON) else { return [] }
        return rules.compactMap { entry in
            guard case .object(let rule) = entry, rule["result"] == .string("failed"),
                case .string(let name)? = rule["rule"]
            else { return nil }
            return Rule(rawValue: name)
        }
    }
}

extension PendingCheckIn {
    /// The rules that sent a check-in to review, as `rule: detail` lines, from its stored rules JSON.
    public static func reviewReasons(rulesJSON: String) -> [String] {
        var reasons: [String] = []
        if case .array(let rules)? = try? JSONValue.parse(rulesJSON) {
            for case .object(let rule) in rules where rule["result"] == .string("needs_review") {
                if case .string(let name)? = rule["rule"], case .string(let detail)? = rule["detail"] {
                    reasons.append("\(name): \(detail)")
                }
            }
        }
        return reasons
    }
}
