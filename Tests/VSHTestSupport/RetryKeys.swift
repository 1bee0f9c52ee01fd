public import Foundation
public import VSHCore

/// A device-fix check-in at a fixed place and `time`, with the retry key `key` (fingerprint
/// `fp-KEY`) whose kept answer `answer` makes from the recorded check-in: for the retry-key tests.
public func keyedCheckIn(
    _ player: PlayerID, _ key: String?, at time: Date,
    answer: @escaping @Sendable (RecordedCheckIn) -> String
) -> CheckInRequest {
    CheckInRequest(
        submission: Submission(
            player: player,
            evidence: .device(position: Coordinate(unchecked: 36.1, -115.1), time: time, accuracyMeters: 5),
            huntID: nil, receivedAt: time),
        photoFile: nil,
        idempotency: key.map { IdempotencyClaim(key: $0, fingerprint: "fp-\($0)", answer: answer) })
}

/// Rejects every check-in: what the retry-key tests record needs no rule.
public let rejectingEverything: CheckInDecider = { _, _ in
    Decision(verdict: .rejected, rules: [], hunt: nil, stop: nil, points: 0, fix: nil)
}
