public import Foundation
public import VSHCore
import VSHPhoto

/// A moderator's decisions, with the rules run again before an approval: a check-in that went to
/// review was decided against the check-ins known then; by the time a moderator approves it the
/// player may have checked in elsewhere (a pending check-in at the Welcome sign, then one at
/// Fremont Street two minutes later). Approving re-decides it against the check-ins known now
/// and refuses when a rule fails, unless the moderator overrides, which the audit trail keeps.
public struct ReviewService: Sendable {
    /// Where the check-ins and their audit trail are.
    public let store: any LeagueStore
    /// Where the photos under review are kept.
    public let photos: any PhotoStore
    /// The rules an approval runs again.
    public var verifier = Verifier()

    /// A service over a league and its photo archive.
    public init(store: any LeagueStore, photos: any PhotoStore) {
        self.store = store
        self.photos = photos
    }

    /// Check-in `id` decided again now: its evidence as recorded (the archived photo read again),
    /// its received time as it was, against every other check-in known now.
    /// - Throws: `LeagueError.unknownCheckIn`; `ReviewRecheckError.unreadable` when the archived
    ///   photo is missing or damaged.
    public func recheck(_ id: Int64) async throws -> Decision {
        let (submission, _) = try await resubmission(id)
        let facts = try await store.facts(for: submission)
        return verifier.evaluate(submission, facts: facts)
    }

    /// Check-in `id`'s evidence as a submission again (`recheckOf` = `id`), with what it was.
    func resubmission(_ id: Int64) async throws -> (Submission, ReviewSubject) {
        guard let subject = try await store.reviewSubject(id) else {
            throw LeagueError.unknownCheckIn(id: id)
        }
        let evidence: Submission.Evidence
        switch subject.source {
        case .device, .replay:
            guard let position = subject.position, let time = subject.fixTime else {
                throw ReviewRecheckError.unreadable(id: id, why: "it has no position or time")
            }
            evidence = .device(position: position, time: time, accuracyMeters: subject.accuracyMeters)
        case .photo:
            guard let key = subject.photoFile, let bytes = try await photos.get(key),
                let photo = try? PhotoReader.photo(bytes: bytes, name: key)
            else {
                throw ReviewRecheckError.unreadable(id: id, why: "its archived photo is missing or damaged")
            }
            // A position other than the photo's own GPS came from the device's fix sent with it.
            if let position = subject.position, let time = subject.fixTime,
                photo.metadata.position.map({ Self.distinct($0, position) }) ?? true
            {
                evidence = .photoWithFix(
                    photo, position: position, time: time, accuracyMeters: subject.accuracyMeters)
            } else {
                evidence = .photo(photo)
            }
        }
        var submission = Submission(
            player: subject.playerID, evidence: evidence, huntID: subject.huntID,
            receivedAt: subject.receivedAt,
            isReplay: subject.source == .replay)
        submission.recheckOf = id
        submission.codeChecked = subject.codeChecked
        submission.answerChecked = subject.answerChecked
        return (submission, subject)
    }

    static func distinct(_ a: Coordinate, _ b: Coordinate) -> Bool {
        abs(a.latitude - b.latitude) > 1e-7 || abs(a.longitude - b.longitude) > 1e-7
    }

    /// Approves check-in `id` after deciding it again now. When a rule fails now, the approval is
    /// refused with those rules, unless `override` is set: then it is recorded with the rules it
    /// overrode added to the reason, for the audit trail.
    ///
    /// A rejected check-in is overturned (`ReviewStore.overturn`): it needs the moderator's own
    /// `reason`, and the rules that failed when it was rejected are what the moderator overturns;
    /// only a rule that fails now and did not then needs `override`. A pending one takes the
    /// default reason when none is given.
    /// - Throws: `ReviewRecheckError.rulesFail` (nothing recorded), `LeagueError`, and whatever
    ///   the store throws.
    public func approve(_ id: Int64, reason: String?, moderator: String, at now: Date, override: Bool = false)
        async throws -> ReviewOutcome
    {
        var subject: ReviewSubject
        var submission: Submission?
        var failing: [RuleResult] = []
        do {
            let (resubmitted, recorded) = try await resubmission(id)
            (submission, subject) = (resubmitted, recorded)
            let facts = try await store.facts(for: resubmitted)
            failing = verifier.evaluate(resubmitted, facts: facts).rules.filter { $0.outcome == .failed }
        } catch let error as ReviewRecheckError where override {
            guard let recorded = try await store.reviewSubject(id) else { throw error }
            subject = recorded
            failing = [RuleResult(.position, .failed, error.why)]
        }
        let overturning = subject.state == .rejected
        if overturning && reason == nil { throw LeagueError.overturnNeedsReason(id: id) }
        var reason = try ReviewDecision.validReason(reason ?? "approved by a moderator")
        let new = failing.filter { !overturning || !subject.failedRules.contains($0.rule) }
        if !new.isEmpty && !override { throw ReviewRecheckError.rulesFail(id: id, rules: new) }
        guard overturning else {
            if !failing.isEmpty {
                let overridden = failing.map(\.rule.rawValue).joined(separator: ", ")
                reason = String(
                    "\(reason) [approved over failing rules: \(overridden)]".prefix(maxReviewReasonLength))
            }
            return try await store.review(id, .approved, reason: reason, moderator: moderator, at: now)
        }
        guard let submission else {
            // The evidence cannot be read again: nothing to record it from.
            throw ReviewRecheckError.unreadable(id: id, why: "its evidence cannot be read again")
        }
        let overturned = subject.failedRules.map(\.rawValue).joined(separator: ", ")
        var note = "overturns rejected check-in #\(id)"
        if !overturned.isEmpty { note += " (\(overturned))" }
        if !new.isEmpty {
            note += "; over failing rules: " + new.map(\.rule.rawValue).joined(separator: ", ")
        }
        reason = String("\(reason) [\(note)]".prefix(maxReviewReasonLength))
        let verifier = self.verifier
        return try await store.overturn(
            id, as: submission, photoFile: subject.photoFile,
            decide: { verifier.evaluate($0, facts: $1).awaitingApproval },
            reason: reason, moderator: moderator, at: now)
    }
}

/// Why an approval was refused after the rules ran again.
public enum ReviewRecheckError: Error, Sendable, CustomStringConvertible, ClassifiedError {
    /// Rules fail against the check-ins known now.
    case rulesFail(id: Int64, rules: [RuleResult])
    /// The check-in's evidence cannot be read again.
    case unreadable(id: Int64, why: String)

    /// What went wrong, in one line.
    public var description: String {
        switch self {
        case .rulesFail(let id, let rules):
            let which = rules.map { "\($0.rule.rawValue): \($0.detail)" }.joined(separator: "; ")
            return "check-in #\(id) fails now: \(which)"
        case .unreadable(let id, let why):
            return "check-in #\(id) cannot be checked again: \(why)"
        }
    }

    /// The reason, for the audit trail.
    var why: String {
        switch self {
        case .rulesFail(_, let rules): return rules.map(\.detail).joined(separator: "; ")
        case .unreadable(_, let why): return why
        }
    }

    /// Invalid data: the check-in does not pass the rules now.
    public var errorKind: ErrorKind { .invalidData }
}
