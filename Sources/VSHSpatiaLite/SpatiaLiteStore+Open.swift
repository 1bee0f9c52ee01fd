import Foundation
public import VSHCore
import VSHHost

extension SpatiaLiteStore {
    /// Opens a league on a SpatiaLite file (created when missing) and syncs its hunt files
    /// into it when they changed: what every command and the server do first.
    /// - Parameters:
    ///   - path: the database file.
    ///   - hunts: the hunts folder, or nil to use the stored definitions as they are.
    ///   - connections: a pool for concurrent work, one connection for a short-lived command.
    /// - Throws: `StoreError`; `HuntSourceError.folderNotFound` for a required folder that
    ///   is missing; `HuntFileErrors` for bad hunt files (the last good definitions stay).
    public static func open(path: String, hunts: HuntsFolder?, connections: Connections = .pool) async throws
        -> SpatiaLiteStore
    {
        let store = try SpatiaLiteStore(path: path, connections: connections)
        if connections != .readOnly, let hunts,
            hunts.required || FileManager.default.fileExists(atPath: hunts.path)
        {
            try await store.sync(directory: hunts.path)
        }
        return store
    }
}
