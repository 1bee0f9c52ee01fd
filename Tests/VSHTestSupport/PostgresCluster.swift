import Foundation
import Synchronization

/// A throwaway PostgreSQL 15 + PostGIS cluster for the tests: `initdb` into a temporary folder
/// (as the `postgres` user when the tests run as root, which initdb refuses), `pg_ctl` on a free
/// loopback port with the socket in that folder, stopped and removed when the test process exits.
/// Each test takes a database of its own (`database()`), copied from a template that already
/// holds the PostGIS extension. Nothing listens beyond 127.0.0.1.
public final class PostgresCluster: Sendable {
    /// The folder of PostgreSQL's programs: `$VSH_PG_BIN`, else Debian's for version 15.
    public static let binaries =
        ProcessInfo.processInfo.environment["VSH_PG_BIN"].flatMap { $0.isEmpty ? nil : $0 }
        ?? "/usr/lib/postgresql/15/bin"

    /// The folder holding the cluster.
    public let folder: String
    /// The loopback port it listens on.
    public let port: Int
    private let owner: String?
    private let databases = Mutex(0)

    /// The cluster of this test process, started on first use.
    /// How long a store this test process opens waits for a pooled connection: a minute, where
    /// vsh waits 10 s, since the whole suite shares one cluster and the machine's two cores (a CI
    /// run's first wave of stores waited past 10 s). Child processes keep vsh's own wait.
    public static let connectionWait: Double = 60

    public static func shared() throws -> PostgresCluster {
        try started.withLock { cluster in
            if let cluster { return cluster }
            let new = try PostgresCluster()
            cluster = new
            atexit { try? PostgresCluster.started.withLock { $0 }?.stop() }
            return new
        }
    }

    private static let started = Mutex<PostgresCluster?>(nil)

    /// Starts a new cluster (see the type); given `primary`, a hot-standby streaming replica of
    /// it, copied with `pg_basebackup` (read-only: every database of the primary, as it changes).
    /// With `tls`, the server offers TLS with that certificate and key (PEM files), and with
    /// `tlsOnly` accepts TCP connections over TLS only (`hostssl` in pg_hba.conf).
    public init(
        replicaOf primary: PostgresCluster? = nil, tls: (certificate: String, key: String)? = nil,
        tlsOnly: Bool = false
    ) throws {
        let root = geteuid() == 0
        owner = root ? "postgres" : nil
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("vsh-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        port = try TestSupport.freePort()
        if root {
            try Self.check(TestSupport.run("/bin/chown", ["postgres:postgres", folder]), "chown")
        }
        let data = folder + "/data"
        if let primary {
            try Self.check(
                run(
                    "pg_basebackup",
                    [
                        "-D", data, "-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "postgres", "-R", "-X",
                        "stream",
                        "-N", "-c", "fast",
                    ]), "pg_basebackup")
        } else {
            try Self.check(
                run(
                    "initdb",
                    ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]),
                "initdb")
        }
        if let tls {
            try FileManager.default.copyItem(atPath: tls.certificate, toPath: data + "/server.crt")
            try FileManager.default.copyItem(atPath: tls.key, toPath: data + "/server.key")
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o600], ofItemAtPath: data + "/server.key")
            let conf = try String(contentsOfFile: data + "/postgresql.conf", encoding: .utf8)
            try (conf + "\nssl = on\n").write(
                toFile: data + "/postgresql.conf", atomically: false, encoding: .utf8)
            if tlsOnly {
                try "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n"
                    .write(
                        toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
            }
            if root {
                for file in ["server.crt", "server.key", "postgresql.conf", "pg_hba.conf"] {
                    try Self.check(
                        TestSupport.run("/bin/chown", ["postgres:postgres", data + "/" + file]), "chown")
                }
            }
        }
        try resume()
        guard primary == nil else { return }
        try Self.check(
            psql("postgres", "CREATE DATABASE vsh_template; "), "create the template database")
        try Self.check(psql("vsh_template", "CREATE EXTENSION postgis;"), "CREATE EXTENSION postgis")
    }

    /// A new empty database with PostGIS, as a `postgres://` URL.
    public func database() throws -> String {
        let number = databases.withLock { count in
            count += 1
            return count
        }
        let name = "vsh_\(number)_\(getpid())"
        try Self.check(psql("postgres", "CREATE DATABASE \(name) TEMPLATE vsh_template;"), "create \(name)")
        return url(name)
    }

    /// The URL of a database of this cluster.
    public func url(_ database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL through `psql` on one of the cluster's databases.
    public func psql(_ database: String, _ sql: String) throws -> TestSupport.ProcessResult {
        try run(
            "psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres",
                "-d", database, "-At", "-c", sql,
            ])
    }

    /// Starts the server (again, after `pause`), on the same port and folder.
    public func resume() throws {
        try Self.check(
            run(
                "pg_ctl",
                [
                    "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-o",
                    "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400",
                    "start",
                ]), "pg_ctl start")
    }

    /// Stops the server (fast shutdown: sessions are ended), keeping its data for `resume`.
    public func pause() throws {
        try Self.check(run("pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"]), "pg_ctl stop")
    }

    /// Stops the server and removes its folder.
    public func stop() throws {
        _ = try? run("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs one of PostgreSQL's programs, as the cluster's owner.
    public func run(_ program: String, _ arguments: [String]) throws -> TestSupport.ProcessResult {
        let path = Self.binaries + "/" + program
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw FixtureError(
                "\(path) is missing: PostgreSQL 15 is not installed (make test installs postgresql-15 and postgresql-15-postgis-3)"
            )
        }
        let command = (owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [path] + arguments
        // Foundation's Process learns of a child's exit through a descriptor the child inherits;
        // the server that `pg_ctl start` leaves running would inherit it too, and the wait would
        // last as long as the server. So every descriptor above stderr is closed first.
        let closeInherited =
            #"for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; exec "$@""#
        return try TestSupport.run("/bin/bash", ["-c", closeInherited, "bash"] + command)
    }

    private static func check(_ result: TestSupport.ProcessResult, _ what: String) throws {
        guard result.status == 0 else {
            throw FixtureError("\(what) failed (exit \(result.status)): \(result.stderr.prefix(2000))")
        }
    }
}
