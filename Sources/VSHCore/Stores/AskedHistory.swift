public import Foundation

/// One question `CheckInFacts.gather` asks of a league's history (see `CheckInHistory`).
public enum HistoryQuestion: Hashable, Sendable {
    case hunt(id: String)
    case huntIDs
    case joinedHunts(PlayerID)
    case teamHunts(PlayerID)
    case covering(Coordinate, huntID: String?)
    case nearest(Coordinate, huntID: String?)
    case visitedStops(PlayerID, huntID: String)
    case answerTries(PlayerID, huntID: String, excluding: Int64?)
    case neighbourFixes(PlayerID, around: Date, excluding: Int64?)
    case photoUses(image: String, pixels: String?, PlayerID, excluding: Int64?)
    case nearCopy(UInt64, excluding: PlayerID, image: String, pixels: String?)

    /// Whether the answer depends on recorded check-ins (a store that decides a group's
    /// check-ins before writing them must write the decided ones before answering). The hunts,
    /// their stops and the players' memberships do not change when a check-in is recorded.
    public var readsCheckIns: Bool {
        switch self {
        case .hunt, .huntIDs, .joinedHunts, .teamHunts, .covering, .nearest: false
        case .visitedStops, .answerTries, .neighbourFixes, .photoUses, .nearCopy: true
        }
    }
}

/// The answer to a `HistoryQuestion`, of the type `CheckInHistory` gives for it.
public enum HistoryAnswer: Sendable {
    case hunt(Hunt?)
    case huntIDs([String])
    case joinedHunts(Set<String>)
    case teamHunts(Set<String>)
    case covering([StopReference])
    case nearest(NearestStop?)
    case visitedStops([String: Date])
    case answerTries([String: AnswerTries])
    case neighbourFixes([Fix])
    case photoUses(PhotoUses?)
    case nearCopy(NearCopy?)
}

extension CheckInFacts {
    /// Gathers the facts for `submission` from a history that answers asynchronously (a
    /// database across a network), asking exactly the questions the synchronous
    /// `gather(for:from:)` asks, in its order: that function runs over the answers collected so
    /// far, and each question it has no answer for yet is put to `ask` and the run repeated.
    /// The rules therefore see the same facts on every backend. A run is a few comparisons;
    /// a submission asks at most six questions.
    public static func gather(
        for submission: Submission, asking ask: (HistoryQuestion) async throws -> HistoryAnswer
    ) async throws -> CheckInFacts {
        var answers = AnsweredHistory()
        while true {
            do {
                return try gather(for: submission, from: answers)
            } catch let unanswered as AnsweredHistory.Unanswered {
                answers.answers[unanswered.question] = try await ask(unanswered.question)
            }
        }
    }
}

/// A `CheckInHistory` over answers collected beforehand; a question without one throws
/// `Unanswered` naming it.
struct AnsweredHistory: CheckInHistory {
    struct Unanswered: Error {
        var question: HistoryQuestion
    }

    var answers: [HistoryQuestion: HistoryAnswer] = [:]

    private func answer(_ question: HistoryQuestion) throws -> HistoryAnswer {
        guard let answer = answers[question] else { throw Unanswered(question: question) }
        return answer
    }

    func hunt(id: String) throws -> Hunt? {
        if case .hunt(let hunt) = try answer(.hunt(id: id)) { return hunt }
        return nil
    }

    func huntIDs() throws -> [String] {
        if case .huntIDs(let ids) = try answer(.huntIDs) { return ids }
        return []
    }

    func joinedHunts(player: PlayerID) throws -> Set<String> {
        if case .joinedHunts(let ids) = try answer(.joinedHunts(player)) { return ids }
        return []
    }

    func teamHunts(player: PlayerID) throws -> Set<String> {
        if case .teamHunts(let ids) = try answer(.teamHunts(player)) { return ids }
        return []
    }

    func stops(covering position: Coordinate, inHunt huntID: String?) throws -> [StopReference] {
        if case .covering(let stops) = try answer(.covering(position, huntID: huntID)) { return stops }
        return []
    }

    func nearestStop(to position: Coordinate, inHunt huntID: String?) throws -> NearestStop? {
        if case .nearest(let stop) = try answer(.nearest(position, huntID: huntID)) { return stop }
        return nil
    }

    func visitedStops(player: PlayerID, hunt huntID: String) throws -> [String: Date] {
        if case .visitedStops(let stops) = try answer(.visitedStops(player, huntID: huntID)) { return stops }
        return [:]
    }

    func answerTries(player: PlayerID, hunt huntID: String, excluding checkIn: Int64?) throws
        -> [String: AnswerTries]
    {
        if case .answerTries(let tries) = try answer(.answerTries(player, huntID: huntID, excluding: checkIn))
        {
            return tries
        }
        return [:]
    }

    func neighbourFixes(player: PlayerID, around time: Date, excluding checkIn: Int64?) throws -> [Fix] {
        if case .neighbourFixes(let fixes) = try answer(
            .neighbourFixes(player, around: time, excluding: checkIn))
        {
            return fixes
        }
        return []
    }

    func photoUses(image: String, pixels: String?, player: PlayerID, excluding checkIn: Int64?) throws
        -> PhotoUses?
    {
        if case .photoUses(let uses) = try answer(
            .photoUses(image: image, pixels: pixels, player, excluding: checkIn))
        {
            return uses
        }
        return nil
    }

    func nearCopy(of perceptualHash: UInt64, excluding player: PlayerID, image: String, pixels: String?)
        throws
        -> NearCopy?
    {
        if case .nearCopy(let copy) = try answer(
            .nearCopy(perceptualHash, excluding: player, image: image, pixels: pixels))
        {
            return copy
        }
        return nil
    }
}
