import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Every command with `--db postgres://…`: the demo's session on a SpatiaLite file and on a
/// PostGIS database gives the same output, line for line, and the same exit statuses.
@Suite struct PostGISCommandTests {
    /// The demo's commands, in order: players, photo and device check-ins (accepted, rejected,
    /// pending, a copy of another player's photo), a replayed walk, a review, boards, profiles.
    static func demoSession() -> [[String]] {
        let fixtures = TestSupport.packageRoot.appendingPathComponent("Fixtures").path
        let now = ["--now", "2026-11-21T20:00:00Z"]
        return [
            ["sync"], ["hunts"], ["hunt", "downtown-fremont"], ["locate", "36.082014", "-115.172734"],
            ["locate", "36.1160", "-115.1760", "--json"],
            ["player", "add", "Ann Lee"], ["player", "add", "Bo Chen"], ["player", "add", "Cy Reyes"],
            ["player", "add", "ann lee"],
            ["checkin", "--player", "Ann Lee", "--photo", fixtures + "/photos/sign-inside.jpg"] + now,
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-vertex.jpg"] + now,
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-retagged.jpg"] + now,
            ["checkin", "--player", "Cy Reyes", "--photo", fixtures + "/photos/sphere-camera-clock.jpg"]
                + now,
            ["checkin", "--player", "Cy Reyes", "--photo", fixtures + "/photos/poor-accuracy.jpg", "--json"]
                + now,
            // Another player's copy of Ann's photo.
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-inside.jpg"] + now,
            [
                "checkin", "--player", "Ann Lee", "--fix", "36.1706,-115.1445", "--time",
                "2026-11-21T19:59:00Z",
                "--accuracy", "6",
            ] + now,
            ["player", "add", "Dee Walker"],
            [
                "replay", fixtures + "/walks/downtown-complete.gpx", "--player", "Dee Walker", "--hunt",
                "downtown-fremont",
            ] + now,
            ["review", "list"],
            ["review", "approve", "5", "--moderator", "demo", "--reason", "the fountains are in the picture"]
                + now,
            ["review", "approve", "5", "--moderator", "demo", "--reason", "again"] + now,
            ["players"], ["profile", "Dee Walker"], ["profile", "Cy Reyes", "--json"], ["leaderboard"],
            ["leaderboard", "--hunt", "strip-classics", "--json"], ["leaderboard", "--format", "csv"],
            ["leaderboard", "rescore"], ["doctor"], ["doctor", "--json"],
            ["collage", "--player", "Cy Reyes", "--hunt", "strip-classics", "-o", "collage.jpg"],
        ]
    }

    @Test func theDemoSessionAnswersAlikeOnBothBackends() async throws {
        let cluster = try PostgresCluster.shared()
        let file = try Workspace()
        let postGIS = try Workspace(database: try cluster.database())
        let steps = Self.demoSession()
        func same(_ text: String, _ workspace: Workspace) -> String {
            text.replacingOccurrences(of: workspace.db + ".photos/", with: "PHOTOS/")
                .replacingOccurrences(of: "photos:", with: "PHOTOS/")
                .replacingOccurrences(of: workspace.db, with: "DB")
                .replacingOccurrences(of: workspace.root.path, with: "ROOT")
                .replacing(#/"created_at":"[^"]+"/#, with: "CREATED")
        }
        var statuses = Set<Int32>()
        for step in steps {
            let onFile = try file.vsh(step)
            let onPostGIS = try postGIS.vsh(step)
            statuses.insert(onFile.status)
            #expect(onFile.status == onPostGIS.status, "\(step): \(onPostGIS.stderr)")
            #expect(same(onFile.stdout, file) == same(onPostGIS.stdout, postGIS), "\(step)")
            #expect(same(onFile.stderr, file) == same(onPostGIS.stderr, postGIS), "\(step)")
        }
        // Accepted, rejected, pending and a refused name all happened.
        #expect(statuses.isSuperset(of: [0, 1, 2, 65]), "\(statuses)")
        let collage = try Data(contentsOf: postGIS.root.appendingPathComponent("collage.jpg"))
        #expect(collage.starts(with: [0xFF, 0xD8]))
        // The photos are in the database, not beside it.
        let name = String(postGIS.db.split(separator: "/").last!)
        let archived = try FileManager.default.subpathsOfDirectory(atPath: file.db + ".photos").filter {
            $0.hasSuffix(".jpg")
        }
        #expect(archived.count >= 4)
        let keys = try cluster.psql(name, "SELECT key FROM photos ORDER BY key").stdout
        #expect(keys.split(separator: "\n").map(String.init) == archived.sorted())
    }

    /// A URL that cannot be used is one clear line, without the password, and the right exit
    /// status: 64 for a malformed URL or setting, 66 for a server or database not there (or TLS
    /// asked of a server that offers none).
    @Test func badURLsAreClearErrors() async throws {
        let cluster = try PostgresCluster.shared()
        let workspace = try Workspace()
        let closed = try TestSupport.freePort()
        for (url, status, words) in [
            ("postgres://ann:hunter2@127.0.0.1:\(closed)/vsh", Int32(66), "cannot reach PostgreSQL"),
            ("postgres://postgres:hunter2@127.0.0.1:\(cluster.port)/no_such_db", 66, "does not exist"),
            ("postgres://postgres@127.0.0.1:\(cluster.port)/x?sslmode=require", 66, "does not offer TLS"),
            (
                "postgres://postgres@127.0.0.1:\(cluster.port)/x?sslmode=sometimes", 64,
                "sslmode=sometimes is not one of"
            ),
            (
                "postgres://postgres@127.0.0.1:\(cluster.port)/x?sslcert=client.pem", 64,
                "sslcert is not a setting"
            ),
            ("postgres://", 64, "not a PostgreSQL URL"),
            ("postgres://postgres@/x?host=run/postgresql", 64, "host=run/postgresql: not a directory path"),
            ("postgres://postgres@/x?host=/run/postgresql&port=99999", 64, "port=99999: not a port"),
            (
                "postgres://postgres@/x?host=/run/postgresql&sslmode=verify-full", 64,
                "Unix socket does not carry"
            ),
            (
                "postgres://postgres@/x?host=/\(String(repeating: "d", count: 100))", 64,
                "longer than the 107 bytes"
            ),
            ("postgres://ann:hunter2@:\(closed)/vsh?host=\(cluster.folder)", 66, "cannot reach PostgreSQL"),
        ] {
            let result = try TestSupport.run(
                "vsh", ["leaderboard", "--db", url], currentDirectory: workspace.root)
            #expect(result.status == status, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(url): \(result.stderr)")
            // The library says what is wrong with the URL; the command line names its flag.
            if status == 64 { #expect(result.stderr.hasPrefix("vsh: --db: "), "\(result.stderr)") }
            #expect(!result.stderr.contains("hunter2"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// A role the database refuses (no rights on vsh's tables) is told so once, with exit 66: a
    /// refusal is not a lost server, and trying again would change nothing.
    @Test func aRoleWithoutRightsIsRefusedNotAskedToRetry() throws {
        let cluster = try PostgresCluster.shared()
        let database = try cluster.database()
        let name = String(database.split(separator: "/").last!)
        let role = "limited_\(getpid())"
        _ = try cluster.psql(name, "DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN")
        let url = "postgres://\(role)@127.0.0.1:\(cluster.port)/\(name)"
        let result = try TestSupport.run("vsh", ["leaderboard", "--db", url])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains("try again"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Every connection of `vsh serve` (the pool's and the one listening for other instances)
    /// names itself to PostgreSQL, so `pg_stat_activity` and the server's log say which client is
    /// which: `vsh`, or the URL's `application_name`; a name PostgreSQL would mangle is refused.
    @Test func connectionsNameThemselvesToPostgreSQL() async throws {
        let cluster = try PostgresCluster.shared()
        for (suffix, expected) in [("", "vsh"), ("?application_name=vsh-eu-1", "vsh-eu-1")] {
            let url = try cluster.database()
            let name = String(url.split(separator: "/").last!)
            let served = try ServedVSH(
                workspace: try Workspace(database: url + suffix), extra: ["--now", fixtureNow])
            defer { served.stop() }
            _ = try await served.register("Ann Lee", email: "ann@example.org")
            // The pool's connections serve the requests (and close after a minute idle); the
            // listening one opens beside them in its own time: wait for it (its last statement is
            // the LISTEN), asking the database's health each time so that a pooled one is there.
            var rows: [[String]] = []
            for _ in 0..<200 {
                #expect(try await served.call("GET", "/healthz").status == 200)
                let answer = try cluster.psql(
                    name,
                    "SELECT application_name, query LIKE 'LISTEN%' FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()"
                ).stdout
                rows = answer.split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
                if rows.contains(where: { $0.last == "t" }) && rows.contains(where: { $0.last == "f" }) {
                    break
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(rows.contains { $0.last == "t" }, "no listening connection: \(rows)")
            #expect(rows.contains { $0.last == "f" }, "no pooled connection: \(rows)")
            #expect(!rows.isEmpty && rows.allSatisfy { $0.first == expected }, "\(rows)")
        }
        let refused = try TestSupport.run(
            "vsh",
            ["leaderboard", "--db", "postgres://postgres@127.0.0.1:\(cluster.port)/x?application_name=café"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("application_name: give 1 to 63 printable ASCII"), "\(refused.stderr)")
    }

    /// A server with no connection to spare (here the role's own limit, SQLSTATE 53300 as for
    /// `max_connections`) is busy: exit 75 and "try again", as a later attempt may get one.
    @Test func aServerWithNoConnectionToSpareIsBusy() throws {
        let cluster = try PostgresCluster.shared()
        let database = try cluster.database()
        let name = String(database.split(separator: "/").last!)
        let role = "crowded_\(getpid())"
        _ = try cluster.psql(
            name, "DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN CONNECTION LIMIT 0")
        let result = try TestSupport.run(
            "vsh", ["leaderboard", "--db", "postgres://\(role)@127.0.0.1:\(cluster.port)/\(name)"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("too many connections"), "\(result.stderr)")
        #expect(result.stderr.contains("try again"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// A URL naming PostgreSQL's socket directory as libpq does (`host=/dir`, the URL's own host
    /// left empty, or that host percent-encoded; the port as the URL's or `port=`) reaches the
    /// server through its Unix socket: hunts synced that way are the ones a TCP URL to the same
    /// database lists, and the other way round; messages name the socket's directory.
    @Test func aUnixSocketURLReachesTheServer() throws {
        let cluster = try PostgresCluster.shared()
        let workspace = try Workspace()
        let tcp = try cluster.database()
        let name = String(tcp.split(separator: "/").last!)
        let socket = "postgres://postgres@:\(cluster.port)/\(name)?host=\(cluster.folder)"
        let sync = try TestSupport.run("vsh", ["sync", "--db", socket, "--hunts", workspace.hunts])
        #expect(sync.status == 0, "\(sync.stderr)")
        let overTCP = try TestSupport.run("vsh", ["hunts", "--db", tcp])
        #expect(overTCP.status == 0, "\(overTCP.stderr)")
        #expect(overTCP.stdout.contains("downtown-fremont"), "\(overTCP.stdout)")
        let portSetting = "postgres://postgres@/\(name)?host=\(cluster.folder)/&port=\(cluster.port)"
        let overSocket = try TestSupport.run("vsh", ["hunts", "--db", portSetting])
        #expect(overSocket.status == 0, "\(overSocket.stderr)")
        #expect(overSocket.stdout == overTCP.stdout)
        let encoded = cluster.folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let hostForm = try TestSupport.run(
            "vsh", ["hunts", "--db", "postgres://postgres@\(encoded):\(cluster.port)/\(name)"])
        #expect(hostForm.status == 0, "\(hostForm.stderr)")
        #expect(hostForm.stdout == overTCP.stdout)
        let doctor = try TestSupport.run("vsh", ["doctor", "--db", socket])
        #expect(doctor.status == 0, "\(doctor.stdout) \(doctor.stderr)")
        // A database that is not there: the message names the socket's directory, not a host.
        let missing = try TestSupport.run(
            "vsh",
            ["hunts", "--db", "postgres://postgres@:\(cluster.port)/no_such_db?host=\(cluster.folder)"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("?host=\(cluster.folder)"), "\(missing.stderr)")
    }

    /// `vsh db copy` moves the demo league (with a password, a moderator and a session) from
    /// SpatiaLite to PostGIS and back to a new file: `vsh doctor` passes on all three, their boards,
    /// profiles and player lists are the same, the copied password signs in through `vsh serve`
    /// on the copy, the next check-in gets the same id everywhere, and a non-empty target is refused.
    @Test func dbCopyMovesTheDemoLeagueBothWays() async throws {
        let cluster = try PostgresCluster.shared()
        let origin = try Workspace()
        for step in Self.demoSession() { _ = try origin.vsh(step) }
        let password = try TestSupport.run(
            "vsh", ["player", "password", "Ann Lee", "--db", origin.db, "--hunts", origin.hunts],
            stdin: Data("correct horse battery\n".utf8))
        #expect(password.status == 0, "\(password.stderr)")
        #expect(try origin.vsh(["player", "role", "Ann Lee", "moderator"]).status == 0)

        let url = try cluster.database()
        let there = try TestSupport.run("vsh", ["db", "copy", "--from", origin.db, "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(
            there.stdout.hasPrefix("copied 2 hunts (17 stops), 4 players, 15 check-ins, 1 reviews"),
            "\(there.stdout)")
        let backPath = origin.root.appendingPathComponent("back.sqlite").path
        let back = try TestSupport.run("vsh", ["db", "copy", "--from", url, "--to", backPath])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.stdout.hasPrefix("copied 2 hunts (17 stops), 4 players, 15 check-ins, 1 reviews"),
            "\(back.stdout)")

        let onPostGIS = try Workspace(database: url)
        let returned = try Workspace(database: backPath)
        let leagues = [origin, onPostGIS, returned]
        for league in leagues {
            let doctor = try league.vsh(["doctor", "--json"])
            #expect(doctor.status == 0, "\(league.db): \(doctor.stdout)\(doctor.stderr)")
            #expect(doctor.stdout.contains(#""missing_photos":0"#))
        }
        var questions: [[String]] = [
            ["leaderboard", "--format", "json"], ["players"], ["hunts"], ["review", "list", "--json"],
        ]
        for name in ["Ann Lee", "Bo Chen", "Cy Reyes", "Dee Walker"] {
            questions.append(["profile", name, "--json"])
        }
        for question in questions {
            let answers = try leagues.map { try $0.vsh(question) }
            #expect(answers.allSatisfy { $0.status == 0 }, "\(question)")
            #expect(answers[0].stdout == answers[1].stdout, "\(question)")
            #expect(answers[0].stdout == answers[2].stdout, "\(question)")
            #expect(!answers[0].stdout.isEmpty)
        }
        // The next check-in carries on from the copied ids.
        let next = [
            "checkin", "--player", "Bo Chen", "--fix", "36.112450,-115.171350", "--time",
            "2026-11-21T19:59:30Z",
            "--accuracy", "5", "--now", "2026-11-21T20:00:00Z", "--json",
        ]
        let answers = try leagues.map { try json($0.vsh(next).stdout) }
        #expect(answers.allSatisfy { $0["verdict"] == .string("accepted") }, "\(answers)")
        let ids = answers.map { $0["id"]?.int }
        #expect(ids[0] == 16)
        #expect(ids[1] == ids[0] && ids[2] == ids[0], "\(ids)")

        // The password hash and the role came along: Ann signs in to the copy as a moderator.
        let server = try ServedVSH(workspace: onPostGIS)
        defer { server.stop() }
        let login = try await server.call(
            "POST", "/v1/sessions", json: #"{"username":"ann lee","password":"correct horse battery"}"#)
        #expect(login.status == 201, "\(login.body)")
        guard case .string(let token)? = try json(login.body)["token"] else {
            Issue.record("no token: \(login.body)")
            return
        }
        #expect(try await server.call("GET", "/v1/reviews", token: token).status == 200)
        server.stop()

        // A target that holds a league is refused and left as it was.
        let again = try TestSupport.run("vsh", ["db", "copy", "--from", origin.db, "--to", url])
        #expect(again.status == 64)
        #expect(again.stderr.contains("is not empty"), "\(again.stderr)")
        #expect(try onPostGIS.vsh(["doctor"]).stdout.contains("16 check-ins"))
        let missing = try TestSupport.run(
            "vsh",
            ["db", "copy", "--from", origin.root.appendingPathComponent("nope.sqlite").path, "--to", url])
        #expect(missing.status == 66)
    }

    /// `sslmode` in the URL, with libpq's meanings, against a throwaway cluster that accepts TCP
    /// connections over TLS only (its certificate made by openssl): `disable` is refused by the
    /// server, `require` connects, `verify-full` connects given the certificate as `sslrootcert`
    /// and is refused without it (the system's roots do not know it). As the server takes nothing
    /// but TLS, every connection that works is a TLS one.
    @Test func sslmodeIsHonoured() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-pg-tls")
        let (cert, key) = try selfSignedCertificate(in: folder)
        let cluster = try PostgresCluster(tls: (cert, key), tlsOnly: true)
        defer { try? cluster.stop() }
        let workspace = try Workspace()
        func leaderboard(_ url: String) throws -> TestSupport.ProcessResult {
            try TestSupport.run("vsh", ["leaderboard", "--db", url, "--hunts", workspace.hunts])
        }
        let plain = try leaderboard(try cluster.database() + "?sslmode=disable")
        #expect(plain.status == 66, "\(plain.stderr)")
        let required = try leaderboard(try cluster.database() + "?sslmode=require")
        #expect(required.status == 0, "\(required.stderr)")
        let database = try cluster.database()
        let named = database.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let verified = try leaderboard(named + "?sslmode=verify-full&sslrootcert=\(cert)")
        #expect(verified.status == 0, "\(verified.stderr)")
        let unknown = try leaderboard(named + "?sslmode=verify-full")
        #expect(
            unknown.status == 66 && unknown.stderr.contains("certificate was not accepted"),
            "\(unknown.stderr)")
        let badRoot = try leaderboard(named + "?sslmode=verify-full&sslrootcert=\(key)")
        #expect(
            badRoot.status == 64 && badRoot.stderr.contains("not a PEM certificate file"), "\(badRoot.stderr)"
        )
    }
}
