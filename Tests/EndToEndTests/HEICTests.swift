import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 14: HEIC, the iPhone camera's format, read through libheif. The photos are made by
/// heif-enc (libheif-examples) from the fixture JPEGs, which carries their EXIF over.
@Suite struct HEICTests {
    static func heic(from fixture: String, in workspace: Workspace) throws -> String {
        let out = workspace.root.appendingPathComponent(
            fixture.replacingOccurrences(of: ".jpg", with: ".heic")
        ).path
        let made = try TestSupport.run(
            "/usr/bin/heif-enc", ["-q", "80", workspace.fixturePath(fixture), "-o", out])
        #expect(made.status == 0, "\(made.stderr)")
        return out
    }

    @Test(arguments: [false, true]) func iPhonePhotosCheckIn(onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Ann", "Bo")
        let photo = try Self.heic(from: "sign-inside.jpg", in: workspace)
        // What vsh exif reads is what exiftool reads.
        let exif = try TestSupport.run("vsh", ["exif", "--json", photo])
        #expect(exif.status == 0, "\(exif.stderr)")
        let object = try json(exif.stdout)
        let exiftool = try TestSupport.run(
            "/usr/bin/exiftool", ["-n", "-s3", "-GPSLatitude", "-GPSLongitude", photo])
        let peer = exiftool.stdout.split(separator: "\n").compactMap { Double($0) }
        #expect(peer.count == 2)
        guard case .number(let lat, _)? = object["lat"], case .number(let lon, _)? = object["lon"] else {
            Issue.record("no position: \(exif.stdout)")
            return
        }
        #expect(abs(lat - (peer.first ?? 0)) < 1e-7 && abs(lon - (peer.last ?? 0)) < 1e-7)
        // It checks in like the JPEG it was made from (it used to be "not a JPEG file").
        let checkin = try workspace.vsh([
            "checkin", "--player", "Ann", "--photo", photo, "--now", fixtureNow, "--json",
        ])
        #expect(checkin.status == 0, "\(checkin.stdout)\(checkin.stderr)")
        #expect(try json(checkin.stdout)["stop"]?.string == "welcome-sign")
        // The JPEG original from another player is a near copy of it: review.
        let original = try workspace.checkin("Bo", "sign-inside.jpg")
        #expect(original.status == 2, "\(original.stdout)")
        // A collage of the HEIC photo.
        let collage = try workspace.vsh([
            "collage", "--player", "Ann", "--hunt", "strip-classics", "-o",
            workspace.root.appendingPathComponent("c.jpg").path,
        ])
        #expect(collage.status == 0, "\(collage.stderr)")
        // Cut short: refused in one line, nothing recorded.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        let half = workspace.root.appendingPathComponent("half.heic").path
        #expect(FileManager.default.createFile(atPath: half, contents: bytes.prefix(bytes.count / 2)))
        let cut = try workspace.vsh(["checkin", "--player", "Ann", "--photo", half, "--now", fixtureNow])
        #expect(cut.status == 65)
        #expect(cut.stderr.hasPrefix("vsh: \(half): unreadable HEIC ("), "\(cut.stderr)")
        #expect(try workspace.totals()["Ann"]?.checkins == 1)
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }
}
