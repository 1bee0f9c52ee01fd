public import ArgumentParser
import Foundation
public import VSHCore
import VSHPostGIS
import VSHSpatiaLite

/// `--db` and `--hunts`, shared by every command that touches the database.
public struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The vsh database: a SpatiaLite file, or postgres://user@host:port/db for PostgreSQL + PostGIS (env VSH_DB).",
            valueName: "path|url"))
    public var db: String?

    @Option(name: .long, help: ArgumentHelp("The folder of hunt files (env VSH_HUNTS).", valueName: "dir"))
    public var hunts: String?

    public init() {}

    public static let defaultDatabase = "./vsh.sqlite"
    public static let defaultHunts = "./hunts"

    /// `--db`, else `$VSH_DB`, else `./vsh.sqlite`.
    public var databasePath: String {
        db ?? ProcessInfo.processInfo.environment["VSH_DB"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.defaultDatabase
    }

    /// `--hunts`, else `$VSH_HUNTS`; nil when neither is set.
    public var explicitHuntsDirectory: String? {
        hunts ?? ProcessInfo.processInfo.environment["VSH_HUNTS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public var huntsDirectory: String { explicitHuntsDirectory ?? Self.defaultHunts }

    /// The hunts folder to sync from: required when named by `--hunts` or `VSH_HUNTS`.
    public var huntsFolder: HuntsFolder {
        HuntsFolder(path: huntsDirectory, required: explicitHuntsDirectory != nil)
    }

    /// Whether the database is a PostgreSQL + PostGIS one (a `postgres://` URL).
    public var isPostGIS: Bool { PostGISStore.isURL(databasePath) }

    /// Opens the database and syncs the hunt files into it when they changed.
    ///
    /// A hunts folder named by `--hunts` or `VSH_HUNTS` must exist (exit 66). The
    /// default `./hunts` may be absent: then the database's definitions are used as they are.
    public func openStore(sync: Bool = true, existing: Bool = false) async throws -> any LeagueStore {
        // Commands that only read a league (or change what is in one) never make a database: a
        // mistyped --db, or a command run from another folder, is an error, not an empty league.
        if existing, !PostGISStore.isURL(databasePath), !FileManager.default.fileExists(atPath: databasePath)
        {
            throw InputError(
                "\(databasePath): no such database (vsh sync or vsh player add makes one; "
                    + "or name it with --db or VSH_DB)",
                status: .noInput)
        }
        do {
            return try await Self.open(databasePath, hunts: sync ? huntsFolder : nil)
        } catch let error as StoreError where [8, 10, 14].contains(error.code) {
            // A league on read-only media, or a file of another user: what only reads it still works.
            // (Nothing is migrated or synced; a command that writes then fails with exit 74.)
            guard access(databasePath, R_OK) == 0,
                access(databasePath, W_OK) != 0 || !Self.canWriteFolder(of: databasePath)
            else { throw error }
            return try SpatiaLiteStore(path: databasePath, connections: .readOnly)
        }
    }

    /// Whether this process can create files beside `path` (SQLite's WAL index and log).
    static func canWriteFolder(of path: String) -> Bool {
        access(
            (path as NSString).deletingLastPathComponent.isEmpty
                ? "." : (path as NSString).deletingLastPathComponent, W_OK) == 0
    }

    /// Opens a league: a `postgres://` URL on PostGIS, else a SpatiaLite file, syncing `hunts`
    /// when given.
    public static func open(_ location: String, hunts: HuntsFolder?) async throws -> any LeagueStore {
        if PostGISStore.isURL(location) {
            return try await PostGISStore.open(url: location, hunts: hunts)
        }
        // A command reads and writes once, in turn: one connection (a pool's second connection
        // costs a SpatiaLite initialisation, about a sixth of a check-in's time).
        return try await SpatiaLiteStore.open(path: location, hunts: hunts, connections: .single)
    }

    /// The photo archive that goes with an opened store: in the database for PostGIS (every
    /// instance reaches it), else files in `<db>.photos/`.
    public func photos(of store: any LeagueStore) -> any PhotoStore {
        Self.photos(of: store, location: databasePath)
    }

    /// The photo archive of the store opened from `location`.
    public static func photos(of store: any LeagueStore, location: String) -> any PhotoStore {
        if let store = store as? PostGISStore { return PostGISPhotoStore(store: store) }
        return FilePhotoStore.beside(databasePath: location)
    }
}

/// `--db` alone, for `vsh-master`'s removals: which league to ask what players hold from a
/// stop or hunt before its definition goes (the next `vsh sync` takes those points away).
public struct LeagueDatabaseOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The league whose players a removal would touch (env VSH_DB, default ./vsh.sqlite; none is fine).",
            valueName: "path|url"))
    public var db: String?

    public init() {}

    /// What players hold from the hunt (or its stop), or nil when there is no league to ask:
    /// the default database absent. A database named by `--db` or `VSH_DB` must exist (exit 66).
    public func pointsHeld(hunt huntID: String, stop stopID: String?) async throws -> PointsHeld? {
        var options = StoreOptions()
        options.db = db
        let named = db != nil || !(ProcessInfo.processInfo.environment["VSH_DB"] ?? "").isEmpty
        let location = options.databasePath
        if !named, !FileManager.default.fileExists(atPath: location) { return nil }
        let store = try await options.openStore(sync: false, existing: true)
        return try await store.pointsHeld(hunt: huntID, stop: stopID)
    }
}

extension PointsHeld {
    /// "3 players hold 150 points from it".
    public var sentence: String {
        "\(players) \(players == 1 ? "player holds" : "players hold") \(points) \(points == 1 ? "point" : "points")"
    }
}
