import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 14: a moderator overturns a rejection. Bo got Ann's photo from a team chat, stripped its
/// GPS and sent it first with his phone's fix at the sign: his check-in waits for a moderator, and
/// Ann's genuine one after it is rejected (the photo is Bo's, as its first submitter, and his use
/// stands). A rejection could never be overturned, so Ann's visit was void for good. Now `vsh
/// review approve` on it, with a reason, records it accepted. (Had Bo's copy been rejected, Ann's
/// check-in would have gone to a moderator at once: CheckInTests/aThiefsRejectedCopyDoesNotTakeTheOwnersPhoto.)
@Suite struct OverturnTests {
    static func reviews(_ workspace: Workspace) throws -> [String] {
        try workspace.query("SELECT checkin_id || ' ' || decision || ' ' || reason FROM reviews ORDER BY id")
    }

    @Test(arguments: [false, true]) func aStolenPhotosRejectionIsOverturned(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        let stripped = workspace.root.appendingPathComponent("from-the-chat.jpg").path
        try FileManager.default.copyItem(atPath: workspace.fixturePath("sign-inside.jpg"), toPath: stripped)
        let strip = try TestSupport.run(
            "/usr/bin/exiftool", ["-q", "-overwrite_original", "-gps:all=", stripped])
        #expect(strip.status == 0, "\(strip.stderr)")
        let sign = try #require(try Landmark.all().first { $0.stop == "welcome-sign" })
        let bo = try workspace.vsh([
            "checkin", "--player", "Bo", "--photo", stripped, "--fix", "\(sign.latitude),\(sign.longitude)",
            "--time", "2026-11-21T19:31:00Z", "--accuracy", "5", "--now", fixtureNow, "--json",
        ])
        // Waiting for a moderator (the fix is half an hour old): a use that stands.
        #expect(bo.status == 2, "\(bo.stdout)\(bo.stderr)")
        let ann = try workspace.checkin("Ann", "sign-inside.jpg")
        #expect(ann.status == 1)
        #expect(
            PhotoCopyTests.uniquePhoto(try? json(ann.stdout))
                == ("failed", "this photo was first submitted by another player (check-in #1)"))

        // An overturn needs the moderator's own reason.
        let bare = try workspace.vsh(["review", "approve", "2", "--now", fixtureNow])
        #expect(bare.status == 64)
        #expect(
            bare.stderr
                == "vsh: check-in #2 was rejected: overturning it needs a reason (kept in the audit trail)\n")
        // unique_photo is what rejected it, and what the moderator overturns: no --override.
        let overturned = try workspace.vsh([
            "review", "approve", "2", "--reason", "Ann took it; Bo's copy came from the team chat", "--now",
            fixtureNow,
        ])
        #expect(overturned.status == 0, "\(overturned.stderr)")
        #expect(
            overturned.stdout
                == "check-in #2 by Ann: rejection overturned, recorded as #3 accepted, +60 points (now 60)\n")
        #expect(try workspace.totals()["Ann"]?.points == 60)
        // Bo's copy still waits for a moderator (who will now reject it): it has earned nothing.
        #expect(try workspace.totals()["Bo"]?.points == 0)
        // Once only; the audit trail names the rejection and the rule overturned.
        let again = try workspace.vsh(["review", "approve", "2", "--reason", "again", "--now", fixtureNow])
        #expect(again.status == 65)
        #expect(again.stderr == "vsh: check-in #2 was already overturned by check-in #3\n")
        #expect(
            try Self.reviews(workspace) == [
                "3 approved Ann took it; Bo's copy came from the team chat [overturns rejected check-in #2 (unique_photo)]"
            ])
        // The new check-in is Ann's visit for the rules: her photo again is already submitted,
        // and Bo's copy is still not his.
        let resent = try workspace.checkin("Ann", "sign-inside.jpg")
        #expect(
            PhotoCopyTests.uniquePhoto(try? json(resent.stdout))
                == ("failed", "this photo was first submitted by another player (check-in #1)"))
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// A rule that fails now and did not when the check-in was rejected is a new failure: the
    /// overturn is refused with it, unless the moderator overrides, which the trail keeps.
    @Test(arguments: [false, true]) func aNewFailureNeedsAnOverride(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann")
        // Accuracy too poor: pending; the moderator rejects it, then changes their mind after
        // the organiser closed the hunt at 19:00.
        #expect(try workspace.checkin("Ann", "poor-accuracy.jpg").status == 2)
        #expect(
            try workspace.vsh(["review", "reject", "1", "--reason", "can't see the fountains"]).status == 0)
        #expect(
            try workspace.master(["hunt", "set", "strip-classics", "--ends", "2026-11-21T19:00:00Z"]).status
                == 0)
        let refused = try workspace.vsh(["review", "approve", "1", "--reason", "they are there after all"])
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("vsh: check-in #1 fails now: hunt_window: "), "\(refused.stderr)")
        #expect(try workspace.totals()["Ann"]?.points == 0)
        let overridden = try workspace.vsh([
            "review", "approve", "1", "--reason", "they are there after all", "--override",
        ])
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(
            overridden.stdout.hasPrefix(
                "check-in #1 by Ann: rejection overturned, recorded as #2 accepted, +"))
        #expect((try workspace.totals()["Ann"]?.points ?? 0) > 0)
        #expect(
            try Self.reviews(workspace).last
                == "2 approved they are there after all [overturns rejected check-in #1; over failing rules: hunt_window]"
        )
        // Reject and revoke still take pending and accepted check-ins only.
        let reject = try workspace.vsh(["review", "reject", "1", "--reason", "no"])
        #expect(reject.stderr == "vsh: check-in #1 is rejected, not pending\n")
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// A pending check-in keeps its photo while it waits: another player's copy sent meanwhile
    /// does not become the photo's first use when the approval decides it again (it did: the
    /// check-in being decided was left out of the photo's uses altogether).
    @Test(arguments: [false, true]) func aCopySentWhileWaitingDoesNotTakeThePhoto(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        #expect(try workspace.checkin("Ann", "poor-accuracy.jpg").status == 2)
        let copy = try workspace.checkin("Bo", "poor-accuracy.jpg")
        #expect(
            PhotoCopyTests.uniquePhoto(try? json(copy.stdout))
                == ("failed", "this photo was first submitted by another player (check-in #1)"))
        let approved = try workspace.vsh(["review", "approve", "1", "--reason", "the fountains are in it"])
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(approved.stdout.hasPrefix("check-in #1 by Ann: accepted, +"))
    }
}
