import Foundation
public import VSHCore

/// `capture_time`: when the photo or the fix was taken. A photo's GPS time (UTC from the
/// satellites) first, else its camera clock made absolute (its own UTC offset, else the hunt's time
/// zone); a device fix's own time; with both, the photo's times first, then the fix's.
public struct CaptureTimeRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.captureTime

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let zone = context.zone
        switch context.submission.evidence {
        case .photo(let photo):
            context.gpsTime = photo.metadata.gpsTime
            context.cameraTime = photo.metadata.takenAt(inTimeZone: zone)
            context.captured = context.gpsTime ?? context.cameraTime
            if let gpsTime = context.gpsTime {
                return RuleResult(rule, .passed, "GPS time \(RFC3339.format(gpsTime))")
            } else if let cameraTime = context.cameraTime {
                let how =
                    photo.metadata.utcOffsetSeconds == nil
                    ? "in the hunt's time zone \(zone.identifier)" : "with its UTC offset"
                return RuleResult(rule, .passed, "camera time \(RFC3339.format(cameraTime)) (\(how))")
            }
            return RuleResult(rule, .failed, "the photo says neither when it was taken nor its GPS time")
        case .device(_, let time, _):
            context.captured = time
            return RuleResult(rule, .passed, "device time \(RFC3339.format(time))")
        case .photoWithFix(let photo, _, let time, _):
            context.gpsTime = photo.metadata.gpsTime
            context.cameraTime = photo.metadata.takenAt(inTimeZone: zone)
            context.captured = context.gpsTime ?? context.cameraTime ?? time
            if let gpsTime = context.gpsTime {
                return RuleResult(rule, .passed, "the photo's GPS time \(RFC3339.format(gpsTime))")
            } else if let cameraTime = context.cameraTime {
                return RuleResult(rule, .passed, "the photo's camera time \(RFC3339.format(cameraTime))")
            }
            return RuleResult(
                rule, .passed,
                "device time \(RFC3339.format(time)) (the photo does not say when it was taken)")
        }
    }
}
