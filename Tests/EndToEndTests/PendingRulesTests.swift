import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 14: a check-in waiting for a moderator is part of the player's journey for the rules.
@Suite struct PendingRulesTests {
    static func device(
        _ workspace: Workspace, _ player: String, _ fix: String, accuracy: String, at time: String,
        now: String
    ) throws -> (status: Int32, answer: JSONValue?) {
        let result = try workspace.vsh([
            "checkin", "--player", player, "--fix", fix, "--accuracy", accuracy, "--time", time, "--now", now,
            "--json",
        ])
        return (result.status, try? json(result.stdout))
    }

    /// Sent to review at the Welcome sign (its accuracy), then at Fremont Street two minutes later:
    /// the second used to be accepted (only accepted check-ins were compared), and approving the
    /// first left the player holding both stops at 300 km/h. Now the second fails travel_speed.
    @Test(arguments: [false, true]) func aPendingCheckInCountsForTravelSpeed(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann")
        let sign = try Self.device(
            workspace, "Ann", "36.082014,-115.172734", accuracy: "120", at: "2026-11-21T19:50:00Z",
            now: "2026-11-21T19:50:30Z")
        #expect(sign.status == 2)
        let fremont = try Self.device(
            workspace, "Ann", "36.1706,-115.1445", accuracy: "6", at: "2026-11-21T19:52:00Z",
            now: "2026-11-21T19:52:30Z")
        #expect(fremont.status == 1)
        let rule = fremont.answer?["rules"]?.array.first { $0["rule"]?.string == "travel_speed" }
        #expect(rule?["result"]?.string == "failed", "\(String(describing: fremont.answer))")
        #expect(rule?["detail"]?.string?.hasPrefix("that would mean travelling at ") == true)
    }
}

/// Issue 14: deadlines by the server's clock and hunts that ask for a photo, set by the
/// organiser with vsh-master and kept by both stores.
@Suite struct HuntDeadlineTests {
    @Test(arguments: [false, true]) func lateCheckInsAndBareFixesAreRefused(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        let set = try workspace.master([
            "hunt", "set", "strip-classics", "--ends", "2026-11-21T19:45:00Z", "--late-grace", "600",
            "--proof",
            "photo",
        ])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try workspace.fileText("strip-classics").contains(#""late_grace_s": 600"#))
        // Taken at 19:30 (GPS time), received at 20:00: the hunt closed at 19:45, grace 10 min.
        let late = try workspace.checkin("Ann", "sign-inside.jpg")
        #expect(late.status == 1, "\(late.stdout)")
        let window = try json(late.stdout)["rules"]?.array.first { $0["rule"]?.string == "hunt_window" }
        #expect(
            window?["detail"]?.string
                == "received at 2026-11-21T20:00:00Z, after the hunt closed at 2026-11-21T19:45:00Z and its 10 min grace"
        )
        // Received at 19:50, within the grace: accepted.
        let onTime = try workspace.vsh([
            "checkin", "--player", "Bo", "--photo", workspace.fixturePath("sign-vertex.jpg"), "--now",
            "2026-11-21T19:50:00Z", "--json",
        ])
        #expect(onTime.status == 0, "\(onTime.stdout)\(onTime.stderr)")
        // A device fix alone is not a photo.
        let bare = try workspace.vsh([
            "checkin", "--player", "Bo", "--fix", "36.1126,-115.1740", "--time", "2026-11-21T19:39:30Z",
            "--accuracy", "5", "--now", "2026-11-21T19:40:00Z", "--json",
        ])
        #expect(bare.status == 1)
        let proof = try json(bare.stdout)["rules"]?.array.first { $0["rule"]?.string == "unique_photo" }
        #expect(proof?["detail"]?.string == "this hunt asks for a photo: a device fix alone does not count")
    }
}

/// Issue 14: a script that sends fresh device fixes for one stop after another within a second
/// claims times a couple of minutes apart (each within max_fix_age_s of its receipt), which
/// pass by claimed time; by the server's receipts they are a teleport, which waits for a
/// moderator (an honest phone that lost its connection between two close stops sends both at
/// once too), so the script's points do not count unseen.
@Suite struct ReceiptSpeedTests {
    @Test(arguments: [false, true]) func aScriptVisitingStopsInASecondWaitsForReview(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Bot")
        // Fremont Street Experience, then the Mob Museum (about 550 m apart), claimed 100 s apart,
        // received 1 s apart.
        let first = try PendingRulesTests.device(
            workspace, "Bot", "36.1706,-115.1445", accuracy: "5", at: "2026-11-21T19:58:00Z",
            now: "2026-11-21T19:59:39Z")
        #expect(first.status == 0, "\(String(describing: first.answer))")
        let second = try PendingRulesTests.device(
            workspace, "Bot", "36.1728,-115.1410", accuracy: "5", at: "2026-11-21T19:59:40Z",
            now: "2026-11-21T19:59:40Z")
        #expect(second.status == 2, "\(String(describing: second.answer))")
        let rule = second.answer?["rules"]?.array.first { $0["rule"]?.string == "travel_speed" }
        #expect(
            rule?["detail"]?.string?.hasSuffix("since your check-in received at 2026-11-21T19:59:39Z") == true
        )
    }
}

/// Issue 14: badges of the hour and the day follow GPS or device time, or when the check-in
/// arrived, never a camera clock the phone's owner can set.
@Suite struct BadgeClockTests {
    @Test(arguments: [false, true]) func aCameraClockDoesNotEarnNightOwl(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        // The Sphere, a camera clock only (no GPS time): set to 03:30 in Las Vegas, inside Night
        // Owl's 22:00-04:00; received at 12:00 Las Vegas time.
        let photo = workspace.root.appendingPathComponent("night.jpg").path
        try FileManager.default.copyItem(
            atPath: workspace.fixturePath("sphere-camera-clock.jpg"), toPath: photo)
        let tagged = try TestSupport.run(
            "/usr/bin/exiftool",
            ["-q", "-overwrite_original", "-DateTimeOriginal=2026:11:21 03:30:00", photo])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let ann = try workspace.vsh([
            "checkin", "--player", "Ann", "--photo", photo, "--now", "2026-11-21T20:00:00Z", "--json",
        ])
        #expect(ann.status == 0, "\(ann.stdout)\(ann.stderr)")
        let awards = try json(ann.stdout)["awards"]?.array.compactMap { $0["badge"]?.string } ?? []
        #expect(!awards.contains("night-owl"), "\(awards)")
        // A device fix at 03:30 Las Vegas time, received at once: Night Owl.
        let bo = try workspace.vsh([
            "checkin", "--player", "Bo", "--fix", "36.12056,-115.16139", "--time", "2026-11-21T11:30:00Z",
            "--accuracy", "5", "--now", "2026-11-21T11:30:30Z", "--json",
        ])
        #expect(bo.status == 0, "\(bo.stdout)\(bo.stderr)")
        let boAwards = try json(bo.stdout)["awards"]?.array.compactMap { $0["badge"]?.string } ?? []
        #expect(boAwards.contains("night-owl"), "\(boAwards)")
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }
}

/// Issue 14: an approval decides the check-in again against what is known now, and refuses
/// when a rule fails unless the moderator overrides (kept in the audit trail). It used to
/// approve on the check-in's accuracy alone.
@Suite struct ApprovalRecheckTests {
    @Test(arguments: [false, true]) func anApprovalRunsTheRulesAgain(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann")
        // At the fountains at 19:30 with a poor accuracy: pending.
        #expect(try workspace.checkin("Ann", "poor-accuracy.jpg").status == 2)
        // The organiser then closes the hunt at 19:00 (the window had been set wrong).
        #expect(
            try workspace.master(["hunt", "set", "strip-classics", "--ends", "2026-11-21T19:00:00Z"]).status
                == 0)
        let refused = try workspace.vsh(["review", "approve", "1", "--reason", "the fountains are in it"])
        #expect(refused.status == 65)
        #expect(
            refused.stderr
                == "vsh: check-in #1 fails now: hunt_window: taken after the hunt closed at 2026-11-21 11:00:00 PST "
                + "(approve with --override to accept it anyway)\n")
        // The terminal shows times on the hunt's clock (Las Vegas), as the web app does.
        let list = try workspace.vsh(["review", "list"]).stdout
        #expect(list.contains("#1  Ann") && list.contains(" received 2026-11-21 12:00:00 PST\n"), "\(list)")
        let shown = try workspace.vsh(["hunt", "strip-classics"]).stdout
        #expect(shown.contains("\nends   2026-11-21 11:00 PST\n"), "\(shown)")
        #expect(try workspace.totals()["Ann"]?.points == 0)
        let overridden = try workspace.vsh([
            "review", "approve", "1", "--reason", "the fountains are in it", "--override",
        ])
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overridden.stdout.hasPrefix("check-in #1 by Ann: accepted"))
        #expect((try workspace.totals()["Ann"]?.points ?? 0) > 0)
        if !onPostGIS {
            // The audit trail keeps what was overridden.
            let reason = try TestSupport.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT reason FROM reviews').fetchone()[0])",
                    workspace.db,
                ])
            #expect(
                reason.stdout == "the fountains are in it [approved over failing rules: hunt_window]\n",
                "\(reason.stdout)\(reason.stderr)")
        }
    }
}

/// Issue 32, item 7: seven device fixes paced at 190 km/h finished Downtown & Fremont (5.2 km)
/// in 87 s for 675 points. The shipped hunts now state their pace: on foot (12 km/h) Downtown,
/// so a paced walk waits for a moderator stop after stop while a real walk is accepted; and its
/// prize stops ask for a photo. Both backends: the pace binds between check-ins of one hunt,
/// which each store reads with the neighbouring fixes.
@Suite struct PaceTests {
    /// Metres between two landmarks (equirectangular: a few kilometres in one town).
    static func meters(_ a: Landmark, _ b: Landmark) -> Double {
        let radius = 6_371_008.8
        let meanLatitude = (a.latitude + b.latitude) / 2 * .pi / 180
        let x = (b.longitude - a.longitude) * .pi / 180 * cos(meanLatitude)
        let y = (b.latitude - a.latitude) * .pi / 180
        return (x * x + y * y).squareRoot() * radius
    }

    /// Checks `player` in at `stops` in turn at `kmh`, each fix received 5 s after it was taken.
    static func walk(
        _ workspace: Workspace, _ player: String, _ stops: [String], kmh: Double
    ) throws -> [(status: Int32, answer: JSONValue?)] {
        let landmarks = try Landmark.all()
        var time = RFC3339.parse("2026-11-21T18:00:00Z")!
        var previous: Landmark?
        var answers: [(status: Int32, answer: JSONValue?)] = []
        for stop in stops {
            let landmark = try #require(landmarks.first { $0.stop == stop })
            if let previous { time += meters(previous, landmark) / (kmh / 3.6) }
            answers.append(
                try PendingRulesTests.device(
                    workspace, player, "\(landmark.latitude),\(landmark.longitude)", accuracy: "5",
                    at: RFC3339.format(time), now: RFC3339.format(time + 5)))
            previous = landmark
        }
        return answers
    }

    @Test(arguments: [false, true]) func aWalkPacedAt190KmhWaitsForAModerator(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS, asShipped: true)
        try workspace.addPlayers("Pacer", "Walker")
        let route = ["mormon-fort", "container-park", "smith-center", "arts-district"]
        let paced = try Self.walk(workspace, "Pacer", route, kmh: 190)
        #expect(paced.map(\.status) == [0, 2, 2, 2])
        for answer in paced.dropFirst() {
            let rule = answer.answer?["rules"]?.array.first { $0["rule"]?.string == "travel_speed" }
            #expect(rule?["detail"]?.string?.hasSuffix("this hunt expects at most 12 km/h") == true)
        }
        // The same stops on foot (5 km/h) count at once; then a prize stop asks for a photo: a
        // device fix alone is refused there, and says why.
        let walked = try Self.walk(workspace, "Walker", route + ["neon-museum"], kmh: 5)
        #expect(walked.map(\.status) == [0, 0, 0, 0, 1])
        let proof = walked.last?.answer?["rules"]?.array.first { $0["rule"]?.string == "unique_photo" }
        #expect(
            proof?["detail"]?.string
                == "The Neon Museum asks for a photo: a device fix alone does not count here")
        let board = try json(workspace.vsh(["leaderboard", "--format", "json"]).stdout)
        let points = Dictionary(
            uniqueKeysWithValues: (board.array).compactMap { row in
                row["player"]?.string.map { ($0, row["points"]?.int ?? -1) }
            })
        #expect(points["Pacer"] ?? 0 < points["Walker"] ?? 0)
    }
}
