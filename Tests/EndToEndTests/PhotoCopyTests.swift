import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 14: copies that are not byte copies, half-received photos, and whose a photo is.
@Suite struct PhotoCopyTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], _ name: String, in workspace: Workspace) throws -> String {
        let path = workspace.root.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    /// `vsh checkin --json` of a photo file by path (not a fixture name), with optional extras.
    static func checkin(_ workspace: Workspace, _ player: String, _ path: String, _ extra: [String] = [])
        throws
        -> (status: Int32, answer: JSONValue?, stderr: String)
    {
        let result = try workspace.vsh(
            ["checkin", "--player", player, "--photo", path, "--now", fixtureNow, "--json"] + extra)
        return (result.status, try? json(result.stdout), result.stderr)
    }

    static func uniquePhoto(_ answer: JSONValue?) -> (String?, String?) {
        let rule = answer?["rules"]?.array.first { $0["rule"]?.string == "unique_photo" }
        return (rule?["result"]?.string, rule?["detail"]?.string)
    }

    /// Another player's photo rewritten losslessly (jpegtran -optimize, or six inserted bytes of
    /// a no-op restart-interval segment) has other bytes and other image data, the same pixels:
    /// refused. (It was accepted: the identity hashed the compressed stream.)
    @Test(arguments: [false, true]) func losslessCopiesOfAnotherPlayersPhotoAreRefused(onPostGIS: Bool) throws
    {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        let original = workspace.fixturePath("sign-inside.jpg")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let optimized = workspace.root.appendingPathComponent("optimized.jpg").path
        let jpegtran = try TestSupport.run(
            "/usr/bin/jpegtran", ["-optimize", "-copy", "all", "-outfile", optimized, original])
        #expect(jpegtran.status == 0, "\(jpegtran.stderr)")
        var bytes = try Self.bytes(original)
        #expect(try Self.bytes(optimized) != bytes)
        // A DRI segment of interval 0 (no restart markers) just before the scan.
        let scan = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        bytes.insert(contentsOf: [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x00], at: scan)
        let restart = try Self.write(bytes, "restart.jpg", in: workspace)
        for copy in [optimized, restart] {
            let result = try Self.checkin(workspace, "Bo", copy)
            #expect(result.status == 1, "\(copy): \(result.stderr)")
            #expect(
                Self.uniquePhoto(result.answer)
                    == ("failed", "this photo was first submitted by another player (check-in #1)"))
        }
        #expect(try workspace.totals()["Bo"]?.points == 0)
    }

    /// A lossy re-save of another player's photo (no EXIF left, placed by the phone's fix) is a
    /// near copy: it waits for a moderator, who is told which check-in it looks like.
    @Test(arguments: [false, true]) func aReSavedCopyGoesToReviewNamingTheOriginal(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let folder = workspace.root.path
        let resave = try TestSupport.run(
            "/bin/sh",
            [
                "-c",
                "djpeg -pnm \"$1\" > \"$2/p.ppm\" && cjpeg -quality 70 \"$2/p.ppm\" > \"$2/resaved.jpg\"",
                "sh",
                workspace.fixturePath("sign-inside.jpg"), folder,
            ])
        #expect(resave.status == 0, "\(resave.stderr)")
        let result = try Self.checkin(
            workspace, "Bo", folder + "/resaved.jpg",
            ["--fix", "36.082014,-115.172734", "--time", "2026-11-21T19:59:30Z", "--accuracy", "5"])
        #expect(result.status == 2, "\(result.stderr)")
        let (outcome, detail) = Self.uniquePhoto(result.answer)
        #expect(outcome == "needs_review")
        #expect(
            detail?.hasPrefix("looks like the photo of another player's check-in #1 (a near copy: ") == true)
        let review = try workspace.vsh(["review", "list"])
        #expect(
            review.stdout.contains("looks like the photo of another player's check-in #1"), "\(review.stdout)"
        )
    }

    /// The first half of a valid JPEG (an upload cut off) is refused in one line and records
    /// nothing: the segment walk finds it whole up to where it stops, libjpeg does not.
    @Test(arguments: [false, true]) func aHalfReceivedPhotoIsRefused(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann")
        let bytes = try Self.bytes(workspace.fixturePath("sign-inside.jpg"))
        let half = try Self.write(Array(bytes.prefix(bytes.count / 2)), "half.jpg", in: workspace)
        let djpeg = try TestSupport.run("/usr/bin/djpeg", ["-outfile", "/dev/null", half])
        #expect(djpeg.stderr.contains("Premature end of JPEG file"))
        let result = try Self.checkin(workspace, "Ann", half)
        #expect(result.status == 65)
        #expect(
            result.stderr
                == "vsh: \(half): corrupt JPEG (its image data ends early: the file was cut short, as by an "
                + "interrupted upload)\n"
        )
        #expect(try workspace.totals()["Ann"]?.checkins == 0)
    }

    /// A photo belongs to the player who submitted it first: after their own rejection (the
    /// wrong hunt) they may send it again. Another player's copy of a photo whose every use was
    /// rejected goes to a moderator (it may be the taker's own picture, sent after a thief's
    /// copy); once a use stands, copies are refused. (Every earlier check-in used to burn it.)
    @Test(arguments: [false, true]) func aPlayerMaySendTheirOwnRejectedPhotoAgain(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Cy", "Dee")
        let wrongHunt = try workspace.checkin("Cy", "sign-vertex.jpg", extra: ["--hunt", "downtown-fremont"])
        #expect(wrongHunt.status == 1)
        // Dee has a copy while Cy's only use was rejected: a moderator decides whose it is.
        let copy = try Self.checkin(workspace, "Dee", workspace.fixturePath("sign-vertex.jpg"))
        #expect(copy.status == 2)
        #expect(
            Self.uniquePhoto(copy.answer)
                == (
                    "needs_review",
                    "this photo was first sent by another player, whose check-in #1 was rejected: a moderator decides whose picture it is"
                ))
        let again = try Self.checkin(workspace, "Cy", workspace.fixturePath("sign-vertex.jpg"))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            Self.uniquePhoto(again.answer) == ("passed", "your photo again, after check-in #1 was rejected"))
        // Once it stands, a third try is a repeat.
        let third = try Self.checkin(workspace, "Cy", workspace.fixturePath("sign-vertex.jpg"))
        #expect(third.status == 1)
        #expect(
            Self.uniquePhoto(third.answer) == ("failed", "this photo was already submitted (check-in #3)"))
        // And now that Cy's use stands, another copy is refused.
        try workspace.addPlayers("Eve")
        let late = try Self.checkin(workspace, "Eve", workspace.fixturePath("sign-vertex.jpg"))
        #expect(late.status == 1)
        #expect(
            Self.uniquePhoto(late.answer)
                == ("failed", "this photo was first submitted by another player (check-in #1)"))
    }
}
