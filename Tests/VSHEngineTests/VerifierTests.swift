import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHGeodesy

/// Rule tests on in-memory facts: no database (the store's own tests and the
/// end-to-end tests run the same rules against a real SpatiaLite file).
let now = RFC3339.parse("2026-11-21T20:00:00Z")!
let plaza = Geofence(
    Polygon(
        shell: try! LinearRing([
            Coordinate(unchecked: 36.0800, -115.1730), Coordinate(unchecked: 36.0800, -115.1720),
            Coordinate(unchecked: 36.0810, -115.1720), Coordinate(unchecked: 36.0810, -115.1730),
            Coordinate(unchecked: 36.0800, -115.1730),
        ])))
let stopA = Stop(id: "a", huntID: "h", name: "Plaza A", points: 50, geofence: plaza)
let stopB = Stop(id: "b", huntID: "h", name: "Plaza B", points: 30, geofence: plaza)
let hunt = Hunt(id: "h", name: "Hunt", timeZone: "America/Los_Angeles", stops: [stopA, stopB])

func device(_ lat: Double, _ lon: Double, at time: String = "2026-11-21T19:59:00Z", accuracy: Double? = 5)
    -> Submission
{
    Submission(
        player: PlayerID(1),
        evidence: .device(
            position: Coordinate(unchecked: lat, lon), time: RFC3339.parse(time)!, accuracyMeters: accuracy),
        huntID: nil, receivedAt: now)
}

func photo(_ metadata: PhotoMetadata) -> Submission {
    Submission(
        player: PlayerID(1),
        evidence: .photo(Photo(metadata: metadata, fileSHA256: "f", imageSHA256: "i", byteCount: 1)),
        huntID: nil, receivedAt: now)
}

func result(_ decision: Decision, _ rule: Rule) -> RuleResult.Outcome? {
    decision.rules.first { $0.rule == rule }?.outcome
}

@Suite struct VerifierTests {
    let verifier = Verifier()

    @Test func rulesRunInTheDocumentedOrderAndAllAreRecorded() async throws {
        let decision = verifier.evaluate(
            device(36.0805, -115.1725), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(decision.rules.map(\.rule) == Rule.allCases)
        #expect(decision.verdict == .accepted)
        #expect(decision.points == 50)
        #expect(decision.stop?.id == "a")
    }

    @Test func toleranceIsBoundedByTheFixAccuracyAndTheHuntsCap() async throws {
        let near = CheckInFacts(hunt: hunt, nearestStop: (stopA, 12))
        #expect(verifier.evaluate(device(36.0805, -115.1718, accuracy: 15), facts: near).verdict == .accepted)
        #expect(verifier.evaluate(device(36.0805, -115.1718, accuracy: 10), facts: near).verdict == .rejected)
        #expect(
            verifier.evaluate(device(36.0805, -115.1718, accuracy: nil), facts: near).verdict == .rejected)
        // The hunt caps the tolerance at 25 m whatever the accuracy claims.
        let far = CheckInFacts(hunt: hunt, nearestStop: (stopA, 30))
        #expect(verifier.evaluate(device(36.0805, -115.1715, accuracy: 45), facts: far).verdict == .rejected)
    }

    @Test func aRejectionNeverNamesADistance() async throws {
        let decision = verifier.evaluate(
            device(36.09, -115.17), facts: CheckInFacts(hunt: hunt, nearestStop: (stopA, 1234)))
        let detail = decision.rules.first { $0.rule == .atStop }!.detail
        #expect(detail == "not at a stop of Hunt")
        #expect(!detail.contains("1234") && !detail.contains(" m"))
        #expect(decision.points == 0)
    }

    @Test func poorAccuracyAndDisagreeingClocksGoToReview() async throws {
        #expect(
            verifier.evaluate(
                device(36.0805, -115.1725, accuracy: 80),
                facts: CheckInFacts(hunt: hunt, coveringStops: [stopA])
            ).verdict == .pending)
        var m = PhotoMetadata()
        m.latitude = 36.0805
        m.longitude = -115.1725
        m.gpsTime = RFC3339.parse("2026-11-21T19:30:00Z")
        m.takenAtLocal = DateTimeParts(year: 2026, month: 11, day: 21, hour: 11, minute: 36, second: 0)
        // 11:36 in Las Vegas is 19:36 UTC: six minutes off.
        let decision = verifier.evaluate(photo(m), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(result(decision, .clocksAgree) == .needsReview)
        #expect(decision.verdict == .pending)
        #expect(decision.points == 0)
        m.takenAtLocal?.minute = 34
        #expect(
            verifier.evaluate(photo(m), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA])).verdict
                == .accepted)
    }

    /// A photo sent with the device's fix (docs/anti-cheat.md, "A photo with a device fix").
    @Test func aPhotoWithADeviceFixIsPlacedByTheFixAndCrossChecked() async throws {
        func withFix(
            _ m: PhotoMetadata, _ lat: Double, _ lon: Double, at time: String = "2026-11-21T19:31:00Z",
            accuracy: Double? = 10
        ) -> Decision {
            let submission = Submission(
                player: PlayerID(1),
                evidence: .photoWithFix(
                    Photo(metadata: m, fileSHA256: "f", imageSHA256: "i", byteCount: 1),
                    position: Coordinate(unchecked: lat, lon), time: RFC3339.parse(time)!,
                    accuracyMeters: accuracy),
                // Received a minute after the fix: fresh (a fix older than the hunt's
                // max_fix_age_s goes to review; shown in lateDeviceFixesGoToReview).
                huntID: nil, receivedAt: RFC3339.parse("2026-11-21T19:32:00Z")!)
            return verifier.evaluate(submission, facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        }
        // A browser upload: no GPS, no time. The fix places the player and its time is the capture time.
        let stripped = withFix(PhotoMetadata(), 36.0805, -115.1725)
        #expect(stripped.verdict == .accepted)
        #expect(stripped.points == 50)
        #expect(stripped.fix?.time == RFC3339.parse("2026-11-21T19:31:00Z"))
        #expect(result(stripped, .uniquePhoto) == .passed)
        #expect(result(stripped, .clocksAgree) == .skipped)

        var m = PhotoMetadata()
        m.latitude = 36.0806
        m.longitude = -115.1726
        m.gpsTime = RFC3339.parse("2026-11-21T19:30:00Z")
        // The photo's GPS agrees with the fix: accepted, all three clocks compared.
        let agreeing = withFix(m, 36.0805, -115.1725)
        #expect(agreeing.verdict == .accepted)
        #expect(agreeing.rules.first { $0.rule == .clocksAgree }?.detail.contains("GPS and device") == true)
        // The photo was taken 2 km away: the fix cannot lend it a position.
        m.latitude = 36.1
        let elsewhere = withFix(m, 36.0805, -115.1725)
        #expect(result(elsewhere, .position) == .failed)
        #expect(elsewhere.verdict == .rejected)
        #expect(!(elsewhere.rules.first { $0.rule == .position }?.detail.contains("2") ?? true))
        // A wide accuracy widens the agreement, as it should: 2.2 km apart with a ±2.2 km fix.
        #expect(result(withFix(m, 36.0805, -115.1725, accuracy: 2200), .position) == .passed)
        m.latitude = 36.0806
        // An old photo, fresh fix: the photo's own time is the capture time, so photo_age fails.
        m.gpsTime = RFC3339.parse("2026-11-20T19:30:00Z")
        let old = withFix(m, 36.0805, -115.1725)
        #expect(result(old, .photoAge) == .failed)
        #expect(old.verdict == .rejected)
        // Photo and fix ten minutes apart: a moderator looks.
        m.gpsTime = RFC3339.parse("2026-11-21T19:21:00Z")
        let late = withFix(m, 36.0805, -115.1725)
        #expect(result(late, .clocksAgree) == .needsReview)
        #expect(late.verdict == .pending)
        // The fix's own accuracy still counts, and a fix at 0, 0 is no position.
        #expect(result(withFix(PhotoMetadata(), 36.0805, -115.1725, accuracy: 80), .accuracy) == .needsReview)
        #expect(result(withFix(PhotoMetadata(), 0, 0), .position) == .failed)
    }

    @Test func timeRules() async throws {
        let facts = CheckInFacts(hunt: hunt, coveringStops: [stopA])
        #expect(
            result(
                verifier.evaluate(device(36.0805, -115.1725, at: "2026-11-21T20:01:59Z"), facts: facts),
                .notInFuture) == .passed)
        #expect(
            result(
                verifier.evaluate(device(36.0805, -115.1725, at: "2026-11-21T20:02:01Z"), facts: facts),
                .notInFuture) == .failed)
        #expect(
            result(
                verifier.evaluate(device(36.0805, -115.1725, at: "2026-11-20T19:59:00Z"), facts: facts),
                .photoAge) == .failed)
        var windowed = hunt
        windowed.startsAt = RFC3339.parse("2026-11-21T19:45:00Z")
        windowed.endsAt = RFC3339.parse("2026-11-21T23:00:00Z")
        let early = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-21T19:30:00Z"),
            facts: CheckInFacts(hunt: windowed, coveringStops: [stopA]))
        #expect(result(early, .huntWindow) == .failed)
        let inWindow = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-21T19:50:00Z"),
            facts: CheckInFacts(hunt: windowed, coveringStops: [stopA]))
        #expect(result(inWindow, .huntWindow) == .passed)
    }

    @Test func travelSpeedAllowsForAccuracyAndRefusesTeleports() async throws {
        let before = Fix(
            position: Coordinate(unchecked: 36.0805, -115.1725), time: RFC3339.parse("2026-11-21T19:20:00Z")!,
            accuracyMeters: 5, source: .device)
        // 10 km in 10 minutes = 60 km/h: fine. In 2 minutes: 300 km/h.
        let target = Geodesic.destination(from: before.position, azimuth: 0, distanceMeters: 10_000)
        var facts = CheckInFacts(hunt: hunt, coveringStops: [stopA], neighbourFixes: [before])
        let ok = verifier.evaluate(
            device(target.latitude, target.longitude, at: "2026-11-21T19:30:00Z"), facts: facts)
        #expect(result(ok, .travelSpeed) == .passed)
        facts.neighbourFixes = [
            Fix(
                position: before.position, time: RFC3339.parse("2026-11-21T19:28:00Z")!, accuracyMeters: 5,
                source: .device)
        ]
        let teleport = verifier.evaluate(
            device(target.latitude, target.longitude, at: "2026-11-21T19:30:00Z"), facts: facts)
        #expect(result(teleport, .travelSpeed) == .failed)
        #expect(teleport.verdict == .rejected)
    }

    /// Each hunt's own pace (issue 32: seven fixes paced at 190 km/h finished Downtown in 87 s):
    /// between two check-ins of the hunt, faster than its `max_speed_kmh` (12, on foot, by
    /// default) goes to review; another hunt's check-in is held to the impossible speed only (a
    /// taxi between two hunts); faster than 200 km/h is rejected whatever the hunt says.
    @Test func eachHuntHasItsOwnPace() {
        let start = Coordinate(unchecked: 36.0805, -115.1725)
        let away = Geodesic.destination(from: start, azimuth: 90, distanceMeters: 1_000)
        func decide(
            minutesBefore minutes: Double, hunt other: String? = "h", pace: Double? = nil
        ) -> (Verdict, RuleResult.Outcome?, String?) {
            var paced = hunt
            if let pace { paced.maxSpeedKmh = pace }
            let earlier = Fix(
                position: away,
                time: RFC3339.parse("2026-11-21T19:59:00Z")!.addingTimeInterval(-60 * minutes),
                accuracyMeters: 5, source: .device, huntID: other)
            let decision = verifier.evaluate(
                device(start.latitude, start.longitude),
                facts: CheckInFacts(hunt: paced, coveringStops: [stopA], neighbourFixes: [earlier]))
            let rule = decision.rules.first { $0.rule == .travelSpeed }
            return (decision.verdict, rule?.outcome, rule?.detail)
        }
        // 990 m (1 km less both accuracies) in 15 min is 4 km/h: a walk.
        #expect(decide(minutesBefore: 15).1 == .passed)
        #expect(decide(minutesBefore: 15).0 == .accepted)
        // In 2 min it is 30 km/h: a moderator decides, and is told the hunt's pace.
        let running = decide(minutesBefore: 2)
        #expect(running.0 == .pending && running.1 == .needsReview)
        #expect(
            running.2
                == "that would mean travelling at 30 km/h since your check-in at 2026-11-21T19:57:00Z; this hunt expects at most 12 km/h"
        )
        // The organiser's choice: players may take the monorail.
        #expect(decide(minutesBefore: 2, pace: 60).1 == .passed)
        // From another hunt's stop, a taxi ride is no reason for review.
        #expect(decide(minutesBefore: 2, hunt: "other").1 == .passed)
        #expect(decide(minutesBefore: 2, hunt: nil).1 == .passed)
        // 990 m in 15 s is 238 km/h: refused in every hunt, however fast it allows.
        let flying = decide(minutesBefore: 0.25, pace: 200)
        #expect(flying.0 == .rejected && flying.1 == .failed)
        #expect(decide(minutesBefore: 0.25, hunt: "other").1 == .failed)
    }

    /// A hunt's `min_duration_s`: the check-in that would complete it sooner after the player's
    /// first accepted check-in goes to review; later, or when it does not complete the hunt, the
    /// rules decide as usual.
    @Test func finishingAHuntTooSoonGoesToReview() {
        var timed = hunt
        timed.minDurationSeconds = 1_800
        func decide(firstAt: String, visited: [String] = ["b"]) -> (Verdict, String?) {
            let first = RFC3339.parse(firstAt)!
            let decision = verifier.evaluate(
                device(36.0805, -115.1725),
                facts: CheckInFacts(
                    hunt: timed, coveringStops: [stopA],
                    visitedStops: Dictionary(uniqueKeysWithValues: visited.map { ($0, first) })))
            return (decision.verdict, decision.rules.first { $0.rule == .travelSpeed }?.detail)
        }
        let quick = decide(firstAt: "2026-11-21T19:49:00Z")
        #expect(quick.0 == .pending)
        #expect(
            quick.1
                == "this would finish all 2 stops 10 min after your first; this hunt takes at least 30 min")
        #expect(decide(firstAt: "2026-11-21T19:19:00Z").0 == .accepted)
        // Not the last stop: nothing to finish yet.
        #expect(decide(firstAt: "2026-11-21T19:49:00Z", visited: []).0 == .accepted)
        timed.minDurationSeconds = nil
        #expect(decide(firstAt: "2026-11-21T19:49:00Z").0 == .accepted)
    }

    /// A stop's own `proof` list adds to its hunt's: a prize stop asks for a photo in a hunt that
    /// takes device fixes, or for the phone's own position beside a photo; the message names the stop.
    @Test func aStopMayAskForAPhotoOrAFixOfItsOwn() {
        var prize = stopA
        prize.proof = [.photo]
        let bare = verifier.evaluate(
            device(36.0805, -115.1725), facts: CheckInFacts(hunt: hunt, coveringStops: [prize]))
        #expect(bare.verdict == .rejected)
        #expect(
            bare.rules.first { $0.rule == .uniquePhoto }?.detail
                == "Plaza A asks for a photo: a device fix alone does not count here")
        #expect(
            verifier.evaluate(
                device(36.0805, -115.1725), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA])
            ).verdict == .accepted)
        // A photo placed by its own GPS, at a stop that asks for the phone's position.
        var metadata = PhotoMetadata()
        (metadata.latitude, metadata.longitude, metadata.accuracyMeters) = (36.0805, -115.1725, 5)
        metadata.gpsTime = RFC3339.parse("2026-11-21T19:58:00Z")
        var positioned = stopA
        positioned.proof = [.fix]
        let exifOnly = verifier.evaluate(
            photo(metadata), facts: CheckInFacts(hunt: hunt, coveringStops: [positioned]))
        #expect(exifOnly.verdict == .rejected)
        #expect(
            exifOnly.rules.first { $0.rule == .atStop }?.detail
                == "Plaza A asks for your phone's position: a photo's own GPS does not count here")
        #expect(
            verifier.evaluate(photo(metadata), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
                .verdict
                == .accepted)
    }

    /// A device fix that arrives late (a phone that was offline) goes to a moderator with its
    /// delay; a fresh one is decided by the rules; past the photo age it is still refused.
    @Test func lateDeviceFixesGoToReview() async throws {
        let fresh = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-21T19:58:30Z"),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(fresh.verdict == .accepted && result(fresh, .photoAge) == .passed)
        let late = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-21T19:35:00Z"),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(late.verdict == .pending)
        #expect(result(late, .photoAge) == .needsReview)
        #expect(
            late.rules.first { $0.rule == .photoAge }?.detail.contains("25 min before it was received")
                == true)
        var patient = hunt
        patient.maxFixAgeSeconds = 3600
        let allowed = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-21T19:35:00Z"),
            facts: CheckInFacts(hunt: patient, coveringStops: [stopA]))
        #expect(allowed.verdict == .accepted)
        let stale = verifier.evaluate(
            device(36.0805, -115.1725, at: "2026-11-19T19:35:00Z"),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(stale.verdict == .rejected && result(stale, .photoAge) == .failed)
    }

    /// An accuracy no integer can hold (a hostile EXIF or client) is shown as a number: formatting
    /// it once trapped (`Int(1e19)`), taking the process down.
    @Test func anAccuracyBeyondAnyIntegerIsShownNotACrash() async throws {
        let decision = verifier.evaluate(
            device(36.0805, -115.1725, accuracy: 1e19),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA]))
        #expect(result(decision, .accuracy) == .needsReview)
        #expect(decision.rules.first { $0.rule == .accuracy }?.detail.contains("1e+19") == true)
    }

    @Test func orderedHuntsAndRepeatVisits() async throws {
        var ordered = hunt
        ordered.ordered = true
        let outOfOrder = verifier.evaluate(
            device(36.0805, -115.1725), facts: CheckInFacts(hunt: ordered, coveringStops: [stopB]))
        #expect(result(outOfOrder, .stopOrder) == .failed)
        let inOrder = verifier.evaluate(
            device(36.0805, -115.1725),
            facts: CheckInFacts(hunt: ordered, coveringStops: [stopB], visitedStops: ["a": now]))
        #expect(inOrder.verdict == .accepted && inOrder.points == 30)
        let again = verifier.evaluate(
            device(36.0805, -115.1725),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], visitedStops: ["a": now]))
        #expect(again.verdict == .accepted)
        #expect(again.points == 0)
        // With two stops covering the point, the unvisited one is taken.
        let overlap = verifier.evaluate(
            device(36.0805, -115.1725),
            facts: CheckInFacts(hunt: hunt, coveringStops: [stopA, stopB], visitedStops: ["a": now]))
        #expect(overlap.stop?.id == "b" && overlap.points == 30)
    }

    @Test func photosWithoutPositionOrTimeAndReusedPhotosAreRejected() async throws {
        var m = PhotoMetadata()
        m.positionNote = "no EXIF"
        let none = verifier.evaluate(photo(m), facts: CheckInFacts(hunt: hunt))
        #expect(result(none, .position) == .failed)
        #expect(result(none, .captureTime) == .failed)
        #expect(result(none, .atStop) == .skipped)
        m.latitude = 0
        m.longitude = 0
        m.gpsTime = RFC3339.parse("2026-11-21T19:30:00Z")
        #expect(result(verifier.evaluate(photo(m), facts: CheckInFacts(hunt: hunt)), .position) == .failed)
        m.latitude = 36.0805
        m.longitude = -115.1725
        let reused = verifier.evaluate(
            photo(m),
            facts: CheckInFacts(
                hunt: hunt, coveringStops: [stopA],
                photoUses: PhotoUses(first: 7, owner: PlayerID(1), ownStanding: 7)))
        #expect(result(reused, .uniquePhoto) == .failed)
        #expect(
            reused.rules.first { $0.rule == .uniquePhoto }?.detail
                == "this photo was already submitted (check-in #7)")
    }

    /// A device fix must say how accurate it is (a phone always knows; a script need not say):
    /// without it the check-in is rejected. A replayed walk's points may lack one (GPX often does).
    @Test func aDeviceFixWithoutAnAccuracyIsRejected() {
        let facts = CheckInFacts(hunt: hunt, coveringStops: [stopA])
        let bare = verifier.evaluate(device(36.0805, -115.1725, accuracy: nil), facts: facts)
        #expect(bare.verdict == .rejected)
        #expect(
            bare.rules.first { $0.rule == .accuracy }?.detail
                == "the device fix does not state its accuracy (accuracy_m)")
        #expect(verifier.evaluate(device(36.0805, -115.1725, accuracy: 5), facts: facts).verdict == .accepted)
        var replay = device(36.0805, -115.1725, accuracy: nil)
        replay.isReplay = true
        #expect(result(verifier.evaluate(replay, facts: facts), .accuracy) == .skipped)
    }

    /// The received time (the server's) is bounded by the hunt's end and its grace for late
    /// phones, whatever the capture time claims; a hunt that asks for a photo refuses a bare fix.
    @Test func deadlinesUseTheReceivedTimeAndPhotoProofRefusesBareFixes() {
        var closing = hunt
        closing.endsAt = RFC3339.parse("2026-11-21T19:59:10Z")
        let inside = device(36.0805, -115.1725, at: "2026-11-21T19:59:00Z")  // received at `now`, 20:00
        func window(_ h: Hunt) -> (RuleResult.Outcome?, String?) {
            let decision = verifier.evaluate(inside, facts: CheckInFacts(hunt: h, coveringStops: [stopA]))
            let rule = decision.rules.first { $0.rule == .huntWindow }
            return (rule?.outcome, rule?.detail)
        }
        #expect(
            window(closing)
                == (
                    .failed,
                    "received at 2026-11-21T20:00:00Z, after the hunt closed at 2026-11-21T19:59:10Z"
                ))
        closing.lateGraceSeconds = 60
        #expect(window(closing).0 == .passed)
        closing.lateGraceSeconds = 30
        #expect(
            window(closing).1
                == "received at 2026-11-21T20:00:00Z, after the hunt closed at 2026-11-21T19:59:10Z and its 30 s grace"
        )
        var photos = hunt
        photos.proof = .photo
        let bare = verifier.evaluate(inside, facts: CheckInFacts(hunt: photos, coveringStops: [stopA]))
        #expect(bare.verdict == .rejected)
        #expect(
            bare.rules.first { $0.rule == .uniquePhoto }?.detail
                == "this hunt asks for a photo: a device fix alone does not count")
    }

    /// travel_speed also compares the times the server received two fresh fixes: claimed times
    /// may be spread over two minutes, receipts not (a script sent 17 stops in 1.5 s). Too fast
    /// by receipt goes to review: a phone that lost its connection sends two at once too.
    @Test func travelSpeedComparesReceiptsOfFreshFixes() {
        // The last fix: 400 m away, taken 100 s ago, received 1 s ago (fresh).
        let other = Fix(
            position: Coordinate(unchecked: 36.0841, -115.1725), time: now.addingTimeInterval(-100),
            accuracyMeters: 5, source: .device, receivedAt: now.addingTimeInterval(-1))
        let here = device(36.0805, -115.1725, at: "2026-11-21T19:59:59Z")
        let decision = verifier.evaluate(
            here, facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], neighbourFixes: [other]))
        #expect(result(decision, .travelSpeed) == .needsReview)
        #expect(decision.verdict == .pending)
        #expect(
            decision.rules.first { $0.rule == .travelSpeed }?.detail.hasSuffix(
                "since your check-in received at 2026-11-21T19:59:59Z") == true)
        // Received 99 s after it was taken? Then 100 s between receipts: a walk.
        var earlier = other
        earlier.receivedAt = now.addingTimeInterval(-100)
        let walk = verifier.evaluate(
            here, facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], neighbourFixes: [earlier]))
        #expect(result(walk, .travelSpeed) == .passed)
        // A fix that arrived late (offline) is compared by its claimed time only.
        var late = other
        late.time = now.addingTimeInterval(-1000)
        let offline = verifier.evaluate(
            here, facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], neighbourFixes: [late]))
        #expect(result(offline, .travelSpeed) == .passed)
    }

    /// A picture belongs to the player who submitted it first: they may send it again after a
    /// rejection; another player's copy is refused whatever became of the first; a near copy of
    /// another player's photo goes to a moderator.
    @Test func photosBelongToTheirFirstSubmitter() {
        var m = PhotoMetadata()
        m.latitude = 36.0805
        m.longitude = -115.1725
        m.gpsTime = RFC3339.parse("2026-11-21T19:30:00Z")
        func decide(_ uses: PhotoUses?, near: NearCopy? = nil) -> (Verdict, String?) {
            let decision = verifier.evaluate(
                photo(m),
                facts: CheckInFacts(hunt: hunt, coveringStops: [stopA], photoUses: uses, nearCopy: near))
            return (decision.verdict, decision.rules.first { $0.rule == .uniquePhoto }?.detail)
        }
        #expect(decide(nil) == (.accepted, "a new photo"))
        // Player 1's own photo, its first use rejected: theirs to send again.
        #expect(
            decide(PhotoUses(first: 3, owner: PlayerID(1), ownStanding: nil))
                == (.accepted, "your photo again, after check-in #3 was rejected"))
        // Player 2 sent it first (whatever its verdict): refused.
        #expect(
            decide(PhotoUses(first: 3, owner: PlayerID(2), ownStanding: nil))
                == (.rejected, "this photo was first submitted by another player (check-in #3)"))
        // A near copy of another player's photo: review.
        #expect(
            decide(nil, near: NearCopy(checkInID: 9, bits: 4))
                == (
                    .pending,
                    "looks like the photo of another player's check-in #9 (a near copy: 4 of 64 bits differ)"
                ))
    }
}
