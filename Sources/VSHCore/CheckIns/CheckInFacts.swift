public import Foundation

/// What the database knows that bears on a submission, gathered inside the
/// transaction that will record it, so that the facts cannot change between
/// the decision and the write (two simultaneous submissions of one photo
/// see each other).
public struct CheckInFacts: Sendable {
    /// The hunt whose rules apply: the one named, else the hunt of the stop
    /// the position points at (covering, else nearest). Nil when there is none.
    public var hunt: Hunt?
    /// Stops of that hunt (or of every hunt when none was named) covering the position, boundary included.
    public var coveringStops: [Stop]
    /// The nearest stop of that hunt when none covers, with the geodesic distance to its boundary.
    public var nearestStop: (stop: Stop, distanceMeters: Double)?
    /// Stops of `hunt` the player already has an accepted check-in at, with its fix time.
    public var visitedStops: [String: Date]
    /// The player's accepted and pending check-ins nearest in fix time before and after this fix (any hunt).
    public var neighbourFixes: [Fix]
    /// Earlier submissions of the same picture (the same image data or the same decoded
    /// pixels), if any: who submitted it first, and whether this player already has it live.
    public var photoUses: PhotoUses?
    /// Another player's check-in whose photo is a near copy of this one (perceptual hashes
    /// within `nearCopyBits`), the nearest, if any.
    public var nearCopy: NearCopy?
    /// What the player did with the questions of `hunt`'s stops so far, by stop (asked only of a
    /// hunt with a question).
    public var answerTries: [String: AnswerTries] = [:]

    /// The facts for a decision (see each property).
    public init(
        hunt: Hunt?, coveringStops: [Stop] = [], nearestStop: (stop: Stop, distanceMeters: Double)? = nil,
        visitedStops: [String: Date] = [:], neighbourFixes: [Fix] = [], photoUses: PhotoUses? = nil,
        nearCopy: NearCopy? = nil
    ) {
        self.hunt = hunt
        self.coveringStops = coveringStops
        self.nearestStop = nearestStop
        self.visitedStops = visitedStops
        self.neighbourFixes = neighbourFixes
        self.photoUses = photoUses
        self.nearCopy = nearCopy
    }
}

/// What a league holds of one picture (its exact copies), for `unique_photo`.
public struct PhotoUses: Hashable, Sendable {
    /// The first check-in that used it: the picture belongs to its player.
    public var first: Int64
    /// Who submitted it first.
    public var owner: PlayerID
    /// The submitting player's earliest check-in with it that was not rejected (accepted,
    /// pending or revoked), if any: the picture has been used by them already.
    public var ownStanding: Int64?
    /// Whether the owner has a use of it that was not rejected. When every one of theirs was
    /// rejected (a copy sent without a position, from elsewhere), the picture is not plainly theirs:
    /// another player's use of it goes to a moderator instead of being refused.
    public var ownerStanding: Bool

    /// Uses from their parts.
    public init(first: Int64, owner: PlayerID, ownStanding: Int64?, ownerStanding: Bool = true) {
        self.first = first
        self.owner = owner
        self.ownStanding = ownStanding
        self.ownerStanding = ownerStanding
    }

    /// The uses the rules see, from the picture's first check-in (whichever it is), its owner,
    /// and the player's earliest standing use other than `rechecked`: a check-in decided again
    /// (an approval) keeps its place as the first use, so a later copy by someone else does not
    /// take the picture from its owner, and its own use is not an earlier one.
    public static func seen(
        first: Int64, owner: PlayerID, ownStanding: Int64?, ownerStanding: Bool = true, rechecked: Int64?
    )
        -> PhotoUses?
    {
        if let rechecked, first == rechecked, ownStanding == nil { return nil }
        return PhotoUses(first: first, owner: owner, ownStanding: ownStanding, ownerStanding: ownerStanding)
    }
}

/// Another player's check-in whose photo looks like this one.
public struct NearCopy: Hashable, Sendable {
    /// The check-in.
    public var checkInID: Int64
    /// How many of the 64 perceptual-hash bits differ.
    public var bits: Int

    /// A near copy from its parts.
    public init(checkInID: Int64, bits: Int) {
        self.checkInID = checkInID
        self.bits = bits
    }

    /// Photos whose perceptual hashes differ in at most this many of 64 bits are near copies.
    /// Measured (`PixelIdentityTests`, docs/anti-cheat.md): 22 real camera photos re-saved at
    /// quality 95, 75 and 50, halved, brightened: 0 to 4 bits; cropped by 2 % a side: 6 to 10;
    /// the closest two of the distinct photos: 22 bits; of 300 generated pictures: 14.
    public static let maxBits = 10

    /// Bits in which two perceptual hashes differ.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The nearest near copy among `candidates` (check-in id, perceptual hash), ties to the earliest.
    public static func nearest(to hash: UInt64, among candidates: some Sequence<(Int64, UInt64)>) -> NearCopy?
    {
        var best: NearCopy?
        for (id, other) in candidates {
            let bits = distance(hash, other)
            guard bits <= maxBits else { continue }
            if best.map({ bits < $0.bits || (bits == $0.bits && id < $0.checkInID) }) ?? true {
                best = NearCopy(checkInID: id, bits: bits)
            }
        }
        return best
    }
}

/// The verifier's decision: the verdict, every rule's result, the stop and the points.
public struct Decision: Sendable {
    /// The decision: accepted, rejected or pending.
    public var verdict: Verdict
    /// Every rule's result, in the order the rules ran.
    public var rules: [RuleResult]
    /// The hunt whose rules applied, if any.
    public var hunt: Hunt?
    /// The stop the check-in is at, if any.
    public var stop: Stop?
    /// Points this check-in earns now: the stop's points on a first accepted
    /// visit, else 0 (scoring derives totals from accepted check-ins).
    public var points: Int
    /// The fix the decision used (nil when the submission had no usable position and time).
    public var fix: Fix?
    /// Whether the answer to the stop's question was right; nil when no answer was judged.
    public var answerRight: Bool?
    /// The tries at the stop's question left after this one (with `answerRight`).
    public var answerTriesLeft: Int?

    /// A decision from its parts (see each property).
    public init(verdict: Verdict, rules: [RuleResult], hunt: Hunt?, stop: Stop?, points: Int, fix: Fix?) {
        self.verdict = verdict
        self.rules = rules
        self.hunt = hunt
        self.stop = stop
        self.points = points
        self.fix = fix
    }
}
