public import ArgumentParser
import Foundation
public import VSHCore
public import VSHSpatiaLite

/// `--db` and `--hunts`, shared by every command that touches the database.
public struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The vsh database file (env VSH_DB).", valueName: "path"))
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

    /// Opens the database and syncs the hunt files into it when they changed.
    ///
    /// A hunts folder named by `--hunts` or `VSH_HUNTS` must exist (exit 66). The
    /// default `./hunts` may be absent: then the database's definitions are used as they are.
    public func openStore(sync: Bool = true) async throws -> SpatiaLiteStore {
        // A command reads and writes once, in turn: one connection (a pool's second connection
        // costs a SpatiaLite initialisation, about a sixth of a check-in's time).
        try await SpatiaLiteStore.open(
            path: databasePath, hunts: sync ? huntsFolder : nil, connections: .single)
    }

    /// The photo store of the database: files in `<db>.photos/`.
    public var photoStore: FilePhotoStore { FilePhotoStore.beside(databasePath: databasePath) }
}
