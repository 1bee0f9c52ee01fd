import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// A third hunt file added beside the shipped ones, broken in one way each.
struct BrokenHunt: CustomTestStringConvertible, Sendable {
    let name: String
    let text: String
    /// What the one-line error must say.
    let message: String

    var testDescription: String { name }

    static func file(
        id: String = "broken", stopID: String = "corner", points: String = "10",
        ring: String =
            "[[-115.15, 36.10], [-115.149, 36.10], [-115.149, 36.101], [-115.15, 36.101], [-115.15, 36.10]]"
    ) -> String {
        """
        {"type": "FeatureCollection", "hunt": {"id": "\(id)", "name": "Broken"},
         "features": [{"type": "Feature", "id": "\(stopID)", "properties": {"name": "Corner", "points": \(points)},
           "geometry": {"type": "Polygon", "coordinates": [\(ring)]}}]}
        """
    }

    static let cases: [BrokenHunt] = [
        BrokenHunt(
            name: "unclosed ring",
            text: file(ring: "[[-115.15, 36.10], [-115.149, 36.10], [-115.149, 36.101], [-115.15, 36.101]]"),
            message:
                #"broken.geojson: stop "corner": ring 0 is not closed (its last position must repeat the first)"#
        ),
        BrokenHunt(
            name: "self-intersection",
            text: file(
                ring:
                    "[[-115.15, 36.10], [-115.149, 36.101], [-115.149, 36.10], [-115.15, 36.101], [-115.15, 36.10]]"
            ),
            message:
                #"broken.geojson: stop "corner": invalid polygon: self-intersection at longitude -115.1495, latitude 36.1005"#
        ),
        BrokenHunt(
            name: "duplicate stop id",
            text: file(stopID: "sphere"),
            message: #"stop "sphere": stop id "sphere" is already used in"#),
        BrokenHunt(
            name: "wrong type",
            text: file(points: #""ten""#),
            message: #"broken.geojson: stop "corner": "points" must be a whole number, not a string"#),
        BrokenHunt(
            name: "malformed JSON",
            text: String(file().dropLast(5)),
            message: "broken.geojson: malformed JSON at line 3, column"),
        BrokenHunt(
            name: "latitude of 200",
            text: file(ring: "[[-115.15, 200], [-115.149, 36.10], [-115.149, 36.101], [-115.15, 200]]"),
            message: #"broken.geojson: stop "corner": latitude 200.0 is out of range"#),
        BrokenHunt(
            name: "hunt id not the file name",
            text: file(id: "other"),
            message: #"broken.geojson: hunt id "other" does not match the file name (expected "broken")"#),
    ]
}

@Suite struct HuntFileErrorTests {
    @Test(arguments: BrokenHunt.cases)
    func aBadHuntFileGivesOneLineExit65AndKeepsThePreviousHunts(_ broken: BrokenHunt) throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["sync"]).status == 0)
        let first = try workspace.vsh(["hunts", "--json"])
        #expect(first.status == 0)
        let before = try json(first.stdout)

        try workspace.write("broken.geojson", broken.text)
        let result = try workspace.vsh(["sync"])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("vsh: \(workspace.hunts)/"))
        #expect(result.stderr.contains(broken.message), "\(result.stderr)")

        // The database still holds the last good definitions; a command that records syncs the
        // folder again and is refused alike; one that reads shows what is published.
        #expect(try workspace.vsh(["locate", "36.12056", "-115.16139"]).status == 65)
        let after = try workspace.vsh(["hunts", "--json"])
        #expect(after.status == 0)
        #expect(try json(after.stdout) == before)
        #expect(
            try workspace.vsh(["locate", "36.12056", "-115.16139"], hunts: false).stdout.contains("sphere"))
    }

    @Test func validateListsEveryProblemOrConfirms() throws {
        let good = try TestSupport.run(
            "vsh-master", ["validate", TestSupport.packageRoot.appendingPathComponent("hunts").path])
        #expect(good.status == 0)
        #expect(good.stdout.hasSuffix(": 2 hunts, 17 stops, 11 badges: valid\n"))

        let workspace = try Workspace()
        try workspace.write("broken.geojson", BrokenHunt.cases[0].text)
        try workspace.write(
            "worse.geojson", BrokenHunt.file(id: "worse", stopID: "worse-corner", points: "-5"))
        let bad = try TestSupport.run("vsh-master", ["validate", workspace.hunts])
        #expect(bad.status == 65)
        let lines = bad.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(bad.stderr)")
        #expect(lines[0].contains("broken.geojson: stop \"corner\": ring 0 is not closed"))
        #expect(
            lines[1].contains(
                #"worse.geojson: stop "worse-corner": "points" is -5; it must be in 0...1000000"#))
        // validate touches no database.
        #expect(!FileManager.default.fileExists(atPath: workspace.db))
    }
}
