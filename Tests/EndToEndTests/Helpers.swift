import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A scratch folder with a database path and a copy of the shipped hunts (free-paced unless a
/// test of the pace rules asks for them as shipped: `TestSupport.copyShippedHunts`).
struct Workspace {
    let root: URL
    /// The database: `vsh.sqlite` in the folder, or the PostgreSQL URL given.
    let db: String
    var hunts: String { root.appendingPathComponent("hunts").path }

    init(copyHunts: Bool = true, asShipped: Bool = false, database: String? = nil) throws {
        root = try TestSupport.temporaryDirectory("vsh-e2e")
        db = database ?? root.appendingPathComponent("vsh.sqlite").path
        try FileManager.default.createDirectory(atPath: hunts, withIntermediateDirectories: true)
        if copyHunts {
            try TestSupport.copyShippedHunts(to: URL(fileURLWithPath: hunts), freePace: !asShipped)
        }
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: hunts).appendingPathComponent(name))
    }

    /// Runs `vsh` with this workspace's database and hunts; with `hunts: false`
    /// from a folder that has no `./hunts`, so the database is used as it is.
    func vsh(_ arguments: [String], hunts: Bool = true, environment: [String: String] = [:]) throws
        -> TestSupport.ProcessResult
    {
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        return try TestSupport.run(
            "vsh", arguments + ["--db", db] + (hunts ? ["--hunts", self.hunts] : []),
            environment: environment,
            currentDirectory: hunts ? root : elsewhere)
    }
}

func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var array: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var int: Int? {
        if case .number(let value, isInteger: true) = self { return Int(value) }
        return nil
    }

    var double: Double? {
        if case .number(let value, _) = self { return value }
        return nil
    }
}

/// The landmark table the hunts were drawn from (Fixtures/landmarks.csv).
struct Landmark {
    let hunt: String
    let stop: String
    let latitude: Double
    let longitude: Double

    static func all() throws -> [Landmark] {
        let text = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/landmarks.csv"),
            encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",", maxSplits: 4)
            return Landmark(
                hunt: String(fields[0]), stop: String(fields[1]), latitude: Double(fields[2])!,
                longitude: Double(fields[3])!)
        }
    }
}

extension Workspace {
    /// A league on a SpatiaLite file, or on a database of the test PostgreSQL cluster.
    static func on(postGIS: Bool, asShipped: Bool = false) throws -> Workspace {
        try Workspace(asShipped: asShipped, database: postGIS ? try PostgresCluster.shared().database() : nil)
    }
}

/// A self-signed certificate for `localhost` and 127.0.0.1 (an EC key, two days) made by openssl in
/// `folder`: the paths of `cert.pem` and `key.pem`.
func selfSignedCertificate(in folder: URL) throws -> (certificate: String, key: String) {
    let (cert, key) = (
        folder.appendingPathComponent("cert.pem").path, folder.appendingPathComponent("key.pem").path
    )
    let made = try tool(
        "openssl",
        [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
            "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key,
            "-out", cert,
        ])
    guard made.status == 0 else { throw FixtureError("openssl could not make a certificate: \(made.stderr)") }
    return (cert, key)
}

extension Workspace {
    /// The first column of each row `sql` gives on this workspace's database, as text (psql on the
    /// test cluster for a PostgreSQL league, Python's sqlite3 for a SpatiaLite file).
    func query(_ sql: String) throws -> [String] {
        let result =
            db.hasPrefix("postgres")
            ? try PostgresCluster.shared().psql(try #require(URL(string: db)).lastPathComponent, sql)
            : try TestSupport.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3,sys\nfor r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(r[0])",
                    db, sql,
                ])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }
}

extension ServedVSH {
    /// What an independent decoder (zbarimg) reads in the PNG QR code at `path`, fetched with `token`.
    func decodedQRCode(_ path: String, token: String, in workspace: Workspace) async throws -> String {
        var request = URLRequest(url: URL(string: base + path)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (png, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let image = workspace.root.appendingPathComponent("qr-\(UUID().uuidString).png")
        try png.write(to: image)
        let decoded = try TestSupport.run("/usr/bin/env", ["zbarimg", "--quiet", "--raw", image.path])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        return decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ServedVSH {
    /// A leaderboard's points by player name (`GET board`, rows of `{player, points}`).
    func boardPoints(_ board: String) async throws -> [String: Int] {
        guard case .array(let rows) = try json(try await call("GET", board).body) else { return [:] }
        var found: [String: Int] = [:]
        for row in rows { found[row["player"]?.string ?? "?"] = row["points"]?.int }
        return found
    }
}

/// Everything the players of a scenario were sent (each check-in's answer, each page fetched), for a
/// test that searches it for what they must never see.
final class SentToPlayers {
    let server: ServedVSH
    private(set) var bodies: [String] = []

    init(_ server: ServedVSH) { self.server = server }

    /// A check-in with these form fields (`TwoInstanceTests.checkIn`), its answer kept.
    func checkIn(_ token: String, _ fields: [(String, String)]) async throws -> (Int, JSONValue?) {
        let answer = try await TwoInstanceTests.checkIn(
            server.base, token: token, session: .shared, fields: fields)
        bodies.append(answer.answer?.compactText ?? "")
        return answer
    }

    /// Fetches `path` as the player `token` (nil: signed out), its body kept.
    func get(_ path: String, token: String?) async throws -> String {
        let body = try await server.call("GET", path, token: token).body
        bodies.append(body)
        return body
    }

    /// All of it, one answer a line.
    var all: String { bodies.joined(separator: "\n") }

    /// The detail of `rule` in a check-in's answer ("" without one).
    static func detail(_ answer: (Int, JSONValue?), _ rule: String) -> String {
        answer.1?["rules"]?.array.first { $0["rule"]?.string == rule }?["detail"]?.string ?? ""
    }
}
