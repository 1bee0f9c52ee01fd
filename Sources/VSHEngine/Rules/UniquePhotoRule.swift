import Foundation
public import VSHCore

/// `unique_photo`: a picture belongs to the player who submitted it first; they may send it again
/// after a rejection, nobody else may. A near copy of another player's photo (re-saved, scaled,
/// cropped a little, brightened) goes to a moderator, and so does a picture whose first player had
/// every use of it rejected: a thief's copy sent first must not take the picture from the player who
/// took it. Without a photo, a hunt or stop that asks for one (`proof`) refuses the check-in.
public struct UniquePhotoRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.uniquePhoto

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let facts = context.facts
        let player = context.submission.player
        guard context.submission.photo != nil else {
            if let stop = context.stop, stop.proof.contains(.photo) {
                return RuleResult(
                    rule, .failed, "\(stop.name) asks for a photo: a device fix alone does not count here")
            }
            if facts.hunt?.proof == .photo {
                return RuleResult(
                    rule, .failed, "this hunt asks for a photo: a device fix alone does not count")
            }
            return RuleResult(rule, .skipped, "no photo")
        }
        if let uses = facts.photoUses, uses.owner != player, uses.ownerStanding {
            return RuleResult(
                rule, .failed, "this photo was first submitted by another player (check-in #\(uses.first))")
        }
        if let uses = facts.photoUses, uses.owner != player {
            return RuleResult(
                rule, .needsReview,
                "this photo was first sent by another player, whose check-in #\(uses.first) was rejected: a moderator decides whose picture it is"
            )
        }
        if let standing = facts.photoUses?.ownStanding {
            return RuleResult(rule, .failed, "this photo was already submitted (check-in #\(standing))")
        }
        if let near = facts.nearCopy {
            return RuleResult(
                rule, .needsReview,
                "looks like the photo of another player's check-in #\(near.checkInID) (a near copy: \(near.bits) of 64 bits differ)"
            )
        }
        if let uses = facts.photoUses {
            return RuleResult(rule, .passed, "your photo again, after check-in #\(uses.first) was rejected")
        }
        return RuleResult(rule, .passed, "a new photo")
    }
}
