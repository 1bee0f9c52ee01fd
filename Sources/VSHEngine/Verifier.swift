import Foundation
public import VSHCore
import VSHGeodesy

/// Decides whether a submission shows the player at a stop. Pure: everything
/// it needs is in the submission and the facts, so the rules can be tested
/// without a database, and the store runs it inside the recording transaction.
///
/// The rules run in a fixed order (see `Rule`); a rule that cannot apply
/// (no position, a device fix has no photo) is `skipped`, never silently passed.
public struct Verifier: Sendable {
    /// Clock skew allowed before a capture time counts as "in the future", seconds.
    public var futureSkewSeconds: Double = 120
    /// GPS time and the camera clock must agree this closely, seconds.
    public var clockAgreementSeconds: Double = 300
    /// The fastest anyone can travel between check-ins, m/s (`Hunt.impossibleSpeedKmh`, 200 km/h:
    /// faster than any taxi on the Strip, slower than a plane): faster is rejected in every hunt.
    /// Each hunt's own pace (`Hunt.maxSpeedKmh`) sends slower but still too fast journeys to review.
    public var maxSpeedMetersPerSecond: Double = Hunt.impossibleSpeedKmh / 3.6
    /// A photo's own GPS and the device fix sent with it may be this far apart beyond their two
    /// accuracy radii, metres (a player walks a little between the shot and the fix).
    public var photoFixAgreementMeters: Double = 100

    public init() {}

    public func evaluate(_ submission: Submission, facts: CheckInFacts) -> Decision {
        var results: [RuleResult] = []
        let hunt = facts.hunt ?? Hunt(id: "", name: "")
        let zone = TimeZone(identifier: hunt.timeZone) ?? TimeZone(identifier: "UTC")!
        let now = submission.receivedAt

        // 1. position
        var position: Coordinate?
        switch submission.evidence {
        case .photo(let photo):
            if let found = photo.metadata.position {
                position = found
            } else {
                results.append(
                    RuleResult(
                        .position, .failed,
                        "the photo has no usable GPS position (\(photo.metadata.positionNote ?? "none"))"))
            }
        case .device(let found, _, _):
            position = found
        case .photoWithFix(let photo, let found, _, let deviceAccuracy):
            // The device fix places the player; the photo's own GPS, when it has any, must agree.
            if let photoPosition = photo.metadata.position {
                let gap = Geodesic.shortDistanceMeters(found, photoPosition)
                let slack = (deviceAccuracy ?? 0) + (photo.metadata.accuracyMeters ?? 0)
                if gap - slack > photoFixAgreementMeters {
                    results.append(
                        RuleResult(
                            .position, .failed,
                            "the photo was taken elsewhere than the device fix says (further apart than both accuracies and \(format(photoFixAgreementMeters)) m allow)"
                        ))
                    break
                }
            }
            position = found
        }
        if let found = position {
            if found.latitude == 0 && found.longitude == 0 {
                results.append(
                    RuleResult(.position, .failed, "the position is 0, 0 (a placeholder, not a place)"))
                position = nil
            } else if case .photoWithFix(let photo, _, _, _) = submission.evidence {
                let how =
                    photo.metadata.position == nil
                    ? "the photo carries no GPS" : "the photo's GPS agrees with it"
                results.append(RuleResult(.position, .passed, "device fix; \(how)"))
            } else {
                results.append(RuleResult(.position, .passed, "GPS position present"))
            }
        }

        // 2. capture_time: GPS time (UTC from the satellites), else the camera clock made absolute.
        var captured: Date?
        var cameraTime: Date?
        var gpsTime: Date?
        switch submission.evidence {
        case .photo(let photo):
            gpsTime = photo.metadata.gpsTime
            cameraTime = photo.metadata.takenAt(inTimeZone: zone)
            captured = gpsTime ?? cameraTime
            if let gpsTime {
                results.append(RuleResult(.captureTime, .passed, "GPS time \(RFC3339.format(gpsTime))"))
            } else if let cameraTime {
                let how =
                    photo.metadata.utcOffsetSeconds == nil
                    ? "in the hunt's time zone \(zone.identifier)" : "with its UTC offset"
                results.append(
                    RuleResult(.captureTime, .passed, "camera time \(RFC3339.format(cameraTime)) (\(how))"))
            } else {
                results.append(
                    RuleResult(
                        .captureTime, .failed, "the photo says neither when it was taken nor its GPS time"))
            }
        case .device(_, let time, _):
            captured = time
            results.append(RuleResult(.captureTime, .passed, "device time \(RFC3339.format(time))"))
        case .photoWithFix(let photo, _, let time, _):
            gpsTime = photo.metadata.gpsTime
            cameraTime = photo.metadata.takenAt(inTimeZone: zone)
            captured = gpsTime ?? cameraTime ?? time
            if let gpsTime {
                results.append(
                    RuleResult(.captureTime, .passed, "the photo's GPS time \(RFC3339.format(gpsTime))"))
            } else if let cameraTime {
                results.append(
                    RuleResult(.captureTime, .passed, "the photo's camera time \(RFC3339.format(cameraTime))")
                )
            } else {
                results.append(
                    RuleResult(
                        .captureTime, .passed,
                        "device time \(RFC3339.format(time)) (the photo does not say when it was taken)"))
            }
        }
        let fixTime = submission.deviceTime ?? captured
        // How old the device's fix was when it arrived (a replay is received at its own time).
        let deviceFixAge = submission.deviceTime.map { now.timeIntervalSince($0) }

        // 3. accuracy
        let accuracy = submission.accuracyMeters
        if let accuracy {
            if accuracy <= hunt.maxAccuracyMeters {
                results.append(RuleResult(.accuracy, .passed, "±\(format(accuracy)) m"))
            } else {
                results.append(
                    RuleResult(
                        .accuracy, .needsReview,
                        "±\(format(accuracy)) m is worse than the hunt's \(format(hunt.maxAccuracyMeters)) m")
                )
            }
        } else if submission.deviceTime != nil, !submission.isReplay {
            // A phone always knows how sure it is; a fix without an accuracy is a fix typed in.
            results.append(
                RuleResult(.accuracy, .failed, "the device fix does not state its accuracy (accuracy_m)"))
        } else {
            results.append(RuleResult(.accuracy, .skipped, "the fix does not state its accuracy"))
        }

        // 4-6. times
        if let captured {
            if captured.timeIntervalSince(now) > futureSkewSeconds {
                results.append(
                    RuleResult(
                        .notInFuture, .failed,
                        "taken at \(RFC3339.format(captured)), after the submission at \(RFC3339.format(now))"
                    ))
            } else {
                results.append(RuleResult(.notInFuture, .passed, "not in the future"))
            }
            let age = now.timeIntervalSince(captured)
            if age > hunt.maxPhotoAgeSeconds {
                results.append(
                    RuleResult(
                        .photoAge, .failed,
                        "taken \(duration(age)) before submission; the hunt accepts \(duration(hunt.maxPhotoAgeSeconds))"
                    ))
            } else if let fixAge = deviceFixAge, fixAge > hunt.maxFixAgeSeconds {
                // Late, not stale: a phone that was offline sends its check-in when it can. A
                // moderator sees the delay and decides; the rules never accept it unseen.
                results.append(
                    RuleResult(
                        .photoAge, .needsReview,
                        "the position was taken \(duration(fixAge)) before it was received; the hunt takes fixes up to \(duration(hunt.maxFixAgeSeconds)) old without review"
                    ))
            } else {
                results.append(
                    RuleResult(.photoAge, .passed, "taken \(duration(max(0, age))) before submission"))
            }
            if let start = hunt.startsAt, captured < start {
                results.append(
                    RuleResult(
                        .huntWindow, .failed, "taken before the hunt opened at \(RFC3339.format(start))"))
            } else if let end = hunt.endsAt, captured > end {
                results.append(
                    RuleResult(.huntWindow, .failed, "taken after the hunt closed at \(RFC3339.format(end))"))
            } else if let end = hunt.endsAt, now.timeIntervalSince(end) > hunt.lateGraceSeconds {
                // The received time is the server's: a check-in that arrives after the hunt closed
                // (and its grace for phones that were offline) is too late, whatever it claims.
                let grace =
                    hunt.lateGraceSeconds > 0 ? " and its \(duration(hunt.lateGraceSeconds)) grace" : ""
                results.append(
                    RuleResult(
                        .huntWindow, .failed,
                        "received at \(RFC3339.format(now)), after the hunt closed at \(RFC3339.format(end))\(grace)"
                    ))
            } else if hunt.startsAt == nil && hunt.endsAt == nil {
                results.append(RuleResult(.huntWindow, .skipped, "the hunt is always open"))
            } else {
                results.append(RuleResult(.huntWindow, .passed, "inside the hunt's window"))
            }
        } else {
            for rule in [Rule.notInFuture, .photoAge, .huntWindow] {
                results.append(RuleResult(rule, .skipped, "no capture time"))
            }
        }

        // 7. clocks_agree: every clock the submission has (GPS, camera, device) within 5 minutes of the others.
        let clocks = [("GPS", gpsTime), ("camera", cameraTime), ("device", submission.deviceTime)]
            .compactMap { name, time in time.map { (name, $0) } }
        if clocks.count >= 2 {
            let times = clocks.map(\.1)
            let gap = times.max()!.timeIntervalSince(times.min()!)
            let names = clocks.map(\.0)
            let which =
                names.count == 2
                ? "\(names[0]) and \(names[1])"
                : "\(names.dropLast().joined(separator: ", ")) and \(names.last!)"
            if gap <= clockAgreementSeconds {
                results.append(
                    RuleResult(.clocksAgree, .passed, "\(which) clocks agree within \(duration(gap))"))
            } else {
                results.append(
                    RuleResult(.clocksAgree, .needsReview, "\(which) clocks differ by \(duration(gap))"))
            }
        } else {
            results.append(
                RuleResult(
                    .clocksAgree, .skipped,
                    submission.photo == nil ? "a device fix has one clock" : "the photo has only one clock"))
        }

        // 8. at_stop: covered (boundary included), or the accuracy circle reaches the stop within the hunt's tolerance.
        var stop: Stop?
        if position != nil {
            if let covering = facts.coveringStops.first(where: { facts.visitedStops[$0.id] == nil })
                ?? facts.coveringStops.first
            {
                stop = covering
                results.append(RuleResult(.atStop, .passed, "at \(covering.name)"))
            } else if let nearest = facts.nearestStop, let accuracy,
                nearest.distanceMeters <= min(accuracy, hunt.toleranceMeters)
            {
                stop = nearest.stop
                results.append(
                    RuleResult(.atStop, .passed, "at \(nearest.stop.name) (within the fix's accuracy)"))
            } else {
                let which = facts.hunt.map { "of \($0.name)" } ?? "of any hunt"
                results.append(RuleResult(.atStop, .failed, "not at a stop \(which)"))
            }
        } else {
            results.append(RuleResult(.atStop, .skipped, "no position"))
        }
        // A stop that asks for the phone's own position is not reached by a photo's EXIF GPS alone.
        if let found = stop, found.proof.contains(.fix), submission.deviceTime == nil,
            let index = results.lastIndex(where: { $0.rule == .atStop })
        {
            results[index] = RuleResult(
                .atStop, .failed,
                "\(found.name) asks for your phone's position: a photo's own GPS does not count here")
        }

        // 9. unique_photo: a picture belongs to the player who submitted it first; they may send
        // it again after a rejection, nobody else may. A near copy of another player's photo
        // (re-saved, scaled, cropped a little, brightened) goes to a moderator, and so does a
        // picture whose first player had every use of it rejected: a thief's copy sent first
        // must not take the picture from the player who took it.
        if submission.photo != nil {
            if let uses = facts.photoUses, uses.owner != submission.player, uses.ownerStanding {
                results.append(
                    RuleResult(
                        .uniquePhoto, .failed,
                        "this photo was first submitted by another player (check-in #\(uses.first))"))
            } else if let uses = facts.photoUses, uses.owner != submission.player {
                results.append(
                    RuleResult(
                        .uniquePhoto, .needsReview,
                        "this photo was first sent by another player, whose check-in #\(uses.first) was rejected: a moderator decides whose picture it is"
                    ))
            } else if let standing = facts.photoUses?.ownStanding {
                results.append(
                    RuleResult(
                        .uniquePhoto, .failed, "this photo was already submitted (check-in #\(standing))"))
            } else if let near = facts.nearCopy {
                results.append(
                    RuleResult(
                        .uniquePhoto, .needsReview,
                        "looks like the photo of another player's check-in #\(near.checkInID) (a near copy: \(near.bits) of 64 bits differ)"
                    ))
            } else if let uses = facts.photoUses {
                results.append(
                    RuleResult(
                        .uniquePhoto, .passed, "your photo again, after check-in #\(uses.first) was rejected")
                )
            } else {
                results.append(RuleResult(.uniquePhoto, .passed, "a new photo"))
            }
        } else if let stop, stop.proof.contains(.photo) {
            results.append(
                RuleResult(
                    .uniquePhoto, .failed,
                    "\(stop.name) asks for a photo: a device fix alone does not count here"))
        } else if facts.hunt?.proof == .photo {
            results.append(
                RuleResult(
                    .uniquePhoto, .failed, "this hunt asks for a photo: a device fix alone does not count"))
        } else {
            results.append(RuleResult(.uniquePhoto, .skipped, "no photo"))
        }

        // 10. travel_speed: against the player's accepted and pending fixes just before and after
        // in time, by the times the fixes claim. Faster than `Hunt.impossibleSpeedKmh` is rejected;
        // faster than the hunt's own pace (`max_speed_kmh`, on foot by default) between two
        // check-ins of this hunt goes to review, as does finishing the whole hunt sooner than its
        // `min_duration_s`. When both fixes arrived within two minutes of being taken, the times
        // the server received them are compared too (too fast: review). A script can claim times
        // spread over that window but sent 17 stops in 1.5 s; an honest phone that lost its
        // connection between two stops close together can send both at once, so a moderator, not
        // the rule, decides that case.
        let receiptWindow = min(hunt.maxFixAgeSeconds, Hunt.defaultMaxFixAgeSeconds)
        let fresh = { (fix: Fix) -> Bool in
            guard fix.source != .replay, let received = fix.receivedAt else { return false }
            return received.timeIntervalSince(fix.time) <= receiptWindow
        }
        let thisIsFresh =
            !submission.isReplay && (fixTime.map { now.timeIntervalSince($0) <= receiptWindow } ?? false)
        let pace = min(hunt.maxSpeedKmh / 3.6, maxSpeedMetersPerSecond)
        if let position, let fixTime {
            var fastest: (speed: Double, fix: Fix)?
            var tooFastForHunt: (speed: Double, fix: Fix)?
            var fastestByReceipt: (speed: Double, fix: Fix)?
            for other in facts.neighbourFixes {
                // Karney's beyond 0.1°, the local radii of curvature nearer (within 1e-6 of it):
                // the check-ins of one town compare without loading PROJ (7 ms, with curl and GnuTLS).
                let distance = Geodesic.shortDistanceMeters(position, other.position)
                let slack = (accuracy ?? 0) + (other.accuracyMeters ?? 0)
                let seconds = max(1, abs(fixTime.timeIntervalSince(other.time)))
                let speed = max(0, distance - slack) / seconds
                if speed > fastest?.speed ?? -1 { fastest = (speed, other) }
                // The hunt's pace binds between its own check-ins: a player may take a taxi from
                // one hunt's last stop to another hunt's first.
                let sameHunt = other.huntID != nil && other.huntID == facts.hunt?.id
                if sameHunt, speed > pace, speed > tooFastForHunt?.speed ?? -1 {
                    tooFastForHunt = (speed, other)
                }
                if thisIsFresh, fresh(other), let received = other.receivedAt {
                    let byReceipt = max(0, distance - slack) / max(1, abs(now.timeIntervalSince(received)))
                    let limit = sameHunt ? pace : maxSpeedMetersPerSecond
                    if byReceipt > limit, byReceipt > fastestByReceipt?.speed ?? -1 {
                        fastestByReceipt = (byReceipt, other)
                    }
                }
            }
            let finish = quickFinish(stop: stop, fixTime: fixTime, facts: facts)
            if let fastest, fastest.speed > maxSpeedMetersPerSecond {
                results.append(
                    RuleResult(
                        .travelSpeed, .failed,
                        "that would mean travelling at \(kmh(fastest.speed)) km/h since your check-in at \(RFC3339.format(fastest.fix.time))"
                    ))
            } else if let slow = tooFastForHunt {
                results.append(
                    RuleResult(
                        .travelSpeed, .needsReview,
                        "that would mean travelling at \(kmh(slow.speed)) km/h since your check-in at \(RFC3339.format(slow.fix.time)); this hunt expects at most \(format(hunt.maxSpeedKmh)) km/h"
                    ))
            } else if let receipt = fastestByReceipt {
                results.append(
                    RuleResult(
                        .travelSpeed, .needsReview,
                        "by the server's clock that would mean travelling at \(kmh(receipt.speed)) km/h since your check-in received at \(RFC3339.format(receipt.fix.receivedAt ?? receipt.fix.time))"
                    ))
            } else if let finish {
                results.append(
                    RuleResult(
                        .travelSpeed, .needsReview,
                        "this would finish all \(hunt.stops.count) stops \(duration(finish)) after your first; this hunt takes at least \(duration(hunt.minDurationSeconds ?? 0))"
                    ))
            } else if fastest != nil {
                results.append(
                    RuleResult(.travelSpeed, .passed, "a plausible journey from your previous check-in"))
            } else {
                results.append(RuleResult(.travelSpeed, .skipped, "no earlier check-in to compare with"))
            }
        } else {
            results.append(RuleResult(.travelSpeed, .skipped, "no position or time"))
        }

        // 11. stop_order
        if let stop, let huntDefinition = facts.hunt, huntDefinition.ordered {
            let index = huntDefinition.stops.firstIndex { $0.id == stop.id } ?? 0
            let missing = huntDefinition.stops[..<index].filter { facts.visitedStops[$0.id] == nil }
            if let next = missing.first, facts.visitedStops[stop.id] == nil {
                results.append(
                    RuleResult(.stopOrder, .failed, "this hunt goes in order: \(next.name) comes first"))
            } else {
                results.append(RuleResult(.stopOrder, .passed, "in order"))
            }
        } else {
            results.append(
                RuleResult(
                    .stopOrder, .skipped, facts.hunt?.ordered == true ? "no stop" : "the hunt is not ordered")
            )
        }

        // 12. first_visit
        var points = 0
        if let stop {
            if let first = facts.visitedStops[stop.id] {
                results.append(
                    RuleResult(
                        .firstVisit, .passed,
                        "already visited at \(RFC3339.format(first)): recorded, no points"))
            } else {
                points = stop.points
                results.append(RuleResult(.firstVisit, .passed, "first visit"))
            }
        } else {
            results.append(RuleResult(.firstVisit, .skipped, "no stop"))
        }

        let verdict = Verdict(results)
        let fix = position.flatMap { p in
            fixTime.map {
                Fix(
                    position: p, time: $0, accuracyMeters: accuracy, source: submission.source,
                    huntID: stop?.huntID)
            }
        }
        return Decision(
            verdict: verdict, rules: results, hunt: facts.hunt ?? stop.flatMap { _ in facts.hunt },
            stop: stop,
            points: verdict == .accepted ? points : 0, fix: fix)
    }

    /// How long the whole hunt took, when this check-in at `stop` would be the last of its stops
    /// to be visited and that is sooner than the hunt's `minDurationSeconds`; nil otherwise.
    private func quickFinish(stop: Stop?, fixTime: Date, facts: CheckInFacts) -> Double? {
        guard let hunt = facts.hunt, let minimum = hunt.minDurationSeconds, let stop,
            facts.visitedStops[stop.id] == nil,
            hunt.stops.allSatisfy({ $0.id == stop.id || facts.visitedStops[$0.id] != nil })
        else { return nil }
        let times = Array(facts.visitedStops.values) + [fixTime]
        let span = times.max()!.timeIntervalSince(times.min()!)
        return span < minimum ? span : nil
    }

    private func kmh(_ metersPerSecond: Double) -> Int {
        let value = metersPerSecond * 3.6
        return value.isFinite && value < 1e15 ? Int(value.rounded()) : Int.max
    }

    private func format(_ value: Double) -> String {
        // Int(_:) traps beyond its range: a hostile accuracy (1e19 m) is shown, never a crash.
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        return value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }

    private func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<120: return "\(Int(seconds.rounded())) s"
        case ..<7200: return "\(Int((seconds / 60).rounded())) min"
        case ..<172_800: return "\(Int((seconds / 3600).rounded())) h"
        default: return "\(Int((seconds / 86_400).rounded())) days"
        }
    }
}
