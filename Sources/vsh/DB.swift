import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHPostGIS
import VSHSpatiaLite

extension VSH {
    struct DB: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db", abstract: "Move a league between a SpatiaLite file and PostgreSQL + PostGIS.",
            subcommands: [Copy.self])

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
