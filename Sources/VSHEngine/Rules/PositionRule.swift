import Foundation
public import VSHCore
import VSHGeodesy

/// `position`: where the submission places the player. A photo alone places them by its EXIF GPS;
/// a device fix by itself; a photo with a fix by the fix, and the photo's own GPS, when it has any,
/// must agree with it (within both accuracies and `Verifier.photoFixAgreementMeters`). 0, 0 is a
/// placeholder, not a place.
public struct PositionRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.position

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let found: Coordinate
        switch context.submission.evidence {
        case .photo(let photo):
            guard let position = photo.metadata.position else {
                return RuleResult(
                    rule, .failed,
                    "the photo has no usable GPS position (\(photo.metadata.positionNote ?? "none"))")
            }
            found = position
        case .device(let position, _, _):
            found = position
        case .photoWithFix(let photo, let position, _, let deviceAccuracy):
            // A stop's code placed the player: `CodePlacement` kept the photo's GPS within reach.
            if let photoPosition = photo.metadata.position, context.submission.placedByCode == nil {
                let gap = Geodesic.shortDistanceMeters(position, photoPosition)
                let slack = (deviceAccuracy ?? 0) + (photo.metadata.accuracyMeters ?? 0)
                if gap - slack > context.limits.photoFixAgreementMeters {
                    return RuleResult(
                        rule, .failed,
                        "the photo was taken elsewhere than the device fix says (further apart than both accuracies and \(RuleWords.format(context.limits.photoFixAgreementMeters)) m allow)"
                    )
                }
            }
            found = position
        }
        if found.latitude == 0 && found.longitude == 0 {
            return RuleResult(rule, .failed, "the position is 0, 0 (a placeholder, not a place)")
        }
        context.position = found
        if let stopID = context.submission.placedByCode {
            let name = context.facts.hunt?.stops.first { $0.id == stopID }?.name ?? stopID
            return RuleResult(
                rule, .passed, "no usable GPS fix: the code of \(name) stands in for it (see the code rule)")
        }
        if case .photoWithFix(let photo, _, _, _) = context.submission.evidence {
            let how =
                photo.metadata.position == nil ? "the photo carries no GPS" : "the photo's GPS agrees with it"
            return RuleResult(rule, .passed, "device fix; \(how)")
        }
        return RuleResult(rule, .passed, "GPS position present")
    }
}
