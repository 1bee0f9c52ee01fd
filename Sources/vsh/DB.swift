import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHPostGIS
import VSHSpatiaLite

extension VSH {
    struct DB: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract:
                "Back up, restore, or move a league between a SpatiaLite file and PostgreSQL + PostGIS.",
            subcommands: [Backup.self, Restore.self, Copy.self])

        struct Backup: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "backup",
                abstract: "Copy the league into a new file while it is in use (SQLite's online backup).",
                discussion: """
                    vsh db backup --db league.sqlite --to backups/league-2026-11-26.sqlite
                    Writes one consistent snapshot of the SpatiaLite league to a new file (private to \
                    you, mode 0600), and its photos to FILE.photos, while vsh serve goes on writing: what \
                    commits after the snapshot began is not in it. The file is complete or absent. Restore \
                    it with vsh db restore. A PostgreSQL league is backed up with PostgreSQL's own tools \
                    (pg_dump -Fc; docs/operations.md).
                    """)
            @OptionGroup var store: StoreOptions
            @Option(help: ArgumentHelp("The new backup file.", valueName: "file")) var to: String

            func run() async throws {
                try await CommandRunner.run(tool: "vsh") {
                    guard !store.isPostGIS else {
                        throw InputError(
                            "vsh db backup backs up a SpatiaLite league; back up PostgreSQL with pg_dump -Fc (docs/operations.md)",
                            status: .usage)
                    }
                    for path in [to, to + ".photos"] where FileManager.default.fileExists(atPath: path) {
                        throw InputError("\(path) exists: back up into a new file", status: .usage)
                    }
                    let db = try await store.openStore(sync: false, existing: true)
                    guard let league = db as? SpatiaLiteStore else {
                        throw InputError("this league cannot be backed up", status: .usage)
                    }
                    let checkIns = try await league.backup(to: to)
                    let photos = try copyPhotos(
                        from: FilePhotoStore.beside(databasePath: store.databasePath),
                        to: FilePhotoStore.beside(databasePath: to))
                    Output.line("backed up \(checkIns) check-ins and \(photos) photos to \(to)")
                    return .success
                }
            }
        }

        struct Restore: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "restore",
                abstract: "Put a backup back as the league (into a path that does not exist yet).",
                discussion: """
                    vsh db restore --from backups/league-2026-11-26.sqlite --db league.sqlite
                    Copies a file made by vsh db backup, and its photos, to --db, which must not exist \
                    (move the damaged league away first; nothing is overwritten), then checks it as vsh \
                    doctor does. Start vsh serve on it afterwards.
                    """)
            @OptionGroup var store: StoreOptions
            @Option(help: ArgumentHelp("The backup file.", valueName: "file")) var from: String

            func run() async throws {
                try await CommandRunner.run(tool: "vsh") {
                    guard !store.isPostGIS else {
                        throw InputError(
                            "vsh db restore restores a SpatiaLite league; restore PostgreSQL with pg_restore (docs/operations.md)",
                            status: .usage)
                    }
                    let target = store.databasePath
                    guard FileManager.default.fileExists(atPath: from) else {
                        throw InputError("\(from): no such backup", status: .noInput)
                    }
                    for path in [target, target + "-wal", target + ".photos"]
                    where FileManager.default.fileExists(atPath: path) {
                        throw InputError(
                            "\(path) exists: restore into a new path (move the old league away first)",
                            status: .usage)
                    }
                    let partial = target + ".restoring"
                    try? FileManager.default.removeItem(atPath: partial)
                    try FileManager.default.copyItem(atPath: from, toPath: partial)
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial)
                    do {
                        let photos = try copyPhotos(
                            from: FilePhotoStore.beside(databasePath: from),
                            to: FilePhotoStore.beside(databasePath: target))
                        try FileManager.default.moveItem(atPath: partial, toPath: target)
                        let db = try await store.openStore(sync: false, existing: true)
                        let health = try await db.health(photos: store.photos(of: db))
                        guard health.isHealthy else {
                            Output.error(
                                "vsh: \(target): the restored league fails its checks; run vsh doctor --db \(target)"
                            )
                            return .dataError
                        }
                        Output.line(
                            "restored \(health.checkIns) check-ins, \(health.players) players and \(photos) photos to \(target)"
                        )
                        return .success
                    } catch {
                        try? FileManager.default.removeItem(atPath: partial)
                        throw error
                    }
                }
            }
        }

        struct Copy: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "copy",
                abstract: "Copy a whole league into an empty database.",
                discussion: """
                    Copies the hunts and badges, players with their accounts (password hashes, roles, \
                    avatars), sessions, password-reset tokens, every check-in with its rule results, \
                    reviews, retry keys and photos, then rescores the target. --from and --to each take a \
                    SpatiaLite file or a postgres://user@host:port/database URL. The target must be empty: \
                    a new file, or a database with no hunts, players or check-ins (exit 64 otherwise). Hunt \
                    files are not read: the definitions come from --from. Afterwards `vsh doctor` passes on \
                    both and their leaderboards are the same. Into PostgreSQL the copy is one transaction; \
                    a new SpatiaLite file that fails half-way is removed. Stop the services writing to \
                    --from first: the copy reads it table by table, not as one snapshot.
                    """)

            @Option(
                help: ArgumentHelp(
                    "The league to copy: a SpatiaLite file or a postgres:// URL.", valueName: "path|url"))
            var from: String
            @Option(
                help: ArgumentHelp(
                    "Where to copy it: a new SpatiaLite file or an empty PostgreSQL database.",
                    valueName: "path|url"))
            var to: String

            func run() async throws {
                try await CommandRunner.run(tool: "vsh") {
                    guard from != to else {
                        throw InputError("--from and --to name the same database", status: .usage)
                    }
                    if !PostGISStore.isURL(from), !FileManager.default.fileExists(atPath: from) {
                        throw InputError("\(from): no such database", status: .noInput)
                    }
                    let source = try await StoreOptions.open(from, hunts: nil)
                    guard let readable = source as? any LeagueCopySource else {
                        throw InputError("\(from): this store cannot be copied", status: .usage)
                    }
                    let newFile = !PostGISStore.isURL(to) && !FileManager.default.fileExists(atPath: to)
                    let newPhotos = newFile && !FileManager.default.fileExists(atPath: to + ".photos")
                    do {
                        let target = try await StoreOptions.open(to, hunts: nil)
                        guard let writable = target as? any LeagueCopyTarget else {
                            throw InputError("\(to): this store cannot be copied into", status: .usage)
                        }
                        let summary = try await LeagueCopier.copy(
                            from: readable, photos: StoreOptions.photos(of: source, location: from),
                            to: writable,
                            photos: StoreOptions.photos(of: target, location: to))
                        let stops = try await target.hunts().map(\.hunt.stops.count).reduce(0, +)
                        let hunts = try await target.hunts().count
                        Output.line(
                            "copied \(hunts) hunts (\(stops) stops), \(summary.rows["players"] ?? 0) players, "
                                + "\(summary.rows["checkins"] ?? 0) check-ins, \(summary.rows["reviews"] ?? 0) reviews, "
                                + "\(summary.rows["sessions"] ?? 0) sessions and \(summary.photos) photos "
                                + "from \(source.location) to \(target.location)")
                        return .success
                    } catch {
                        if newFile {
                            for suffix in ["", "-wal", "-shm", "-journal"] {
                                try? FileManager.default.removeItem(atPath: to + suffix)
                            }
                            if newPhotos { try? FileManager.default.removeItem(atPath: to + ".photos") }
                        }
                        throw error
                    }
                }
            }
        }
    }
}

/// Copies every photo file of `source` into `target` (folders 0700, files 0600), keeping those it
/// already has: photos are named by their content, so a file of the same name is the same photo.
/// - Returns: how many photos `target` holds afterwards of `source`'s.
func copyPhotos(from source: FilePhotoStore, to target: FilePhotoStore) throws -> Int {
    let keys = try source.keys()
    for key in keys {
        let destination = target.absolutePath(key)
        guard !FileManager.default.fileExists(atPath: destination) else { continue }
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: source.absolutePath(key), toPath: destination)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    }
    return keys.count
}
