import Foundation
import Testing
import VSHTestSupport

/// `vsh hunts export DIR`: the published hunts written back as files, on both backends: the files
/// they were synced from byte for byte, which `vsh-master validate` accepts and `vsh sync` finds
/// unchanged; for a league that does not hold its files, the definitions written as vsh-master
/// writes them, which publish the same hunts and badges.
@Suite struct HuntExportTests {
    func files(_ folder: String) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
            if !isFolder.boolValue { found[name] = FileManager.default.contents(atPath: folder + "/" + name) }
        }
        return found
    }

    @Test(arguments: [false, true]) func theExportIsWhatWasPublished(onPostGIS: Bool) throws {
        let workspace = try Workspace(database: onPostGIS ? try PostgresCluster.shared().database() : nil)
        #expect(try workspace.vsh(["sync"]).status == 0)
        let out = workspace.root.appendingPathComponent("exported").path
        let export = try workspace.vsh(["hunts", "export", out])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("exported 2 hunts and badges.json to "))
        let written = try files(out)
        #expect(written.count == 3)
        #expect(written == (try files(workspace.hunts)))
        let validate = try TestSupport.run("vsh-master", ["validate", out])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        #expect(
            try workspace.vsh(["sync", "--hunts", out], hunts: false).stdout.contains("hunts are up to date"))
        // Into a folder that holds anything: refused, nothing written.
        let again = try workspace.vsh(["hunts", "export", out])
        #expect(again.status == 64)
        #expect(again.stderr.contains("is not empty"))
        #expect(try files(out) == written)
        let onAFile = try workspace.vsh(["hunts", "export", out + "/badges.json"])
        #expect(onAFile.status == 64)
        #expect(
            onAFile.stderr
                == "vsh: \(out)/badges.json is a file; vsh hunts export writes into a new or empty folder\n")
        #expect(try files(out) == written)
    }

    @Test func aLeagueWithoutItsFilesIsWrittenFromItsDefinitions() throws {
        let workspace = try Workspace()
        try workspace.league()
        let hunts = try workspace.vsh(["hunts", "--json"]).stdout
        let hunt = try workspace.vsh(["hunt", "strip-classics", "--json"]).stdout
        let board = try workspace.vsh(["leaderboard", "--format", "json"]).stdout
        // As a league synced before vsh kept the files has it.
        let forget = try TestSupport.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM published_files'); c.commit()",
                workspace.db,
            ])
        #expect(forget.status == 0, "\(forget.stderr)")
        let out = workspace.root.appendingPathComponent("exported").path
        #expect(try workspace.vsh(["hunts", "export", out]).status == 0)
        #expect(
            Set(try files(out).keys) == ["downtown-fremont.geojson", "strip-classics.geojson", "badges.json"])
        #expect(try TestSupport.run("vsh-master", ["validate", out]).status == 0)
        // Published from the export, the hunts, stops, badges and so the scores are the same.
        #expect(try workspace.vsh(["sync", "--hunts", out], hunts: false).status == 0)
        #expect(try workspace.vsh(["hunts", "--json"]).stdout == hunts)
        #expect(try workspace.vsh(["hunt", "strip-classics", "--json"]).stdout == hunt)
        #expect(try workspace.vsh(["leaderboard", "--format", "json"]).stdout == board)
        let missing = try TestSupport.run(
            "vsh",
            [
                "hunts", "export", workspace.root.appendingPathComponent("x").path, "--db",
                workspace.root.appendingPathComponent("none.sqlite").path,
            ])
        #expect(missing.status == 66)
    }
}
