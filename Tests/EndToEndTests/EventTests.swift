import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Running an event on a real `vsh serve`: the results the organiser takes home.
@Suite struct EventTests {
    /// East of the springs, their edges touching.
    static let pond = OrganiserAPITests.stop("preserve-pond", "The pond", lat: 36.1721, lon: -115.1886)

    /// `results.csv` read back by Python's `csv` module: a row a player by rank, the finish on the
    /// hunt's clock, a name a spreadsheet would run as a formula defused; organisers only.
    @Test(arguments: [false, true]) func theResultsAreACSVForASpreadsheet(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write(
            "springs-preserve.geojson",
            OrganiserAPITests.hunt(
                "springs-preserve", stops: [OrganiserAPITests.springs, Self.pond]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("-Bo O'Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        // Fixes less than two minutes old (older ones wait for a moderator), whole seconds; the two
        // stops 67 m apart, within the fixes' accuracies (the server receives them a moment apart).
        let finish = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 15).rounded(.down))
        for (token, lat, lon, at) in [
            (ann, "36.1719", "-115.1893", finish.addingTimeInterval(-30)),
            (ann, "36.1721", "-115.1886", finish),
            (bo, "36.1719", "-115.1893", finish.addingTimeInterval(-20)),
        ] {
            let answer = try await TwoInstanceTests.checkIn(
                server.base, token: token, session: .shared,
                fields: [("lat", lat), ("lon", lon), ("accuracy_m", "48"), ("fix_time", RFC3339.format(at))])
            #expect(
                answer.answer?["verdict"]?.string == "accepted", "\(answer.answer.map(\.compactText) ?? "")")
        }
        #expect(
            try await server.call("GET", "/v1/hunts/springs-preserve/results.csv", token: ann).status == 403)
        #expect(try await server.call("GET", "/v1/hunts/no-such-hunt/results.csv", token: mo).status == 404)
        let csv = try await server.call("GET", "/v1/hunts/springs-preserve/results.csv", token: mo)
        #expect(csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.body.contains("\r\n"), "\(csv.body)")
        let file = workspace.root.appendingPathComponent("results.csv")
        try Data(csv.body.utf8).write(to: file)
        let read = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                file.path,
            ])
        guard case .array(let rows) = try json(read.stdout) else {
            Issue.record("not CSV: \(read.stdout) \(read.stderr)")
            return
        }
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?["player"]?.string == "Ann Lee" && rows.first?["rank"]?.string == "1")
        #expect(rows.first?["completed"]?.string == "yes" && rows.first?["stops_visited"]?.string == "2")
        #expect(rows.first?["finished_at"]?.string == RFC3339.format(finish), "\(rows)")
        // 13:xx in Las Vegas when it is 21:xx in UTC: the hunt's own clock.
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone(identifier: "America/Los_Angeles")
        local.dateFormat = "yyyy-MM-dd HH:mm:ss"
        #expect(rows.first?["finished_local"]?.string == local.string(from: finish))
        #expect(rows.last?["player"]?.string == "'-Bo O'Diaz", "\(rows)")
        #expect(rows.last?["completed"]?.string == "no" && rows.last?["finished_at"]?.string == "")
    }
}
