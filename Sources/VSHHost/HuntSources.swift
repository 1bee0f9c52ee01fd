import Foundation
public import VSHCore

/// Reads the hunt files of a folder: every `*.geojson`, sorted by name, and `badges.json`.
public enum HuntSources {
    /// Each hunt file's name, size and modification time (to the nanosecond):
    /// when it equals the last synced one, the files need not be read and hashed.
    public static func statSignature(directory: String) -> String? {
        // readdir, not FileManager: every command asks this before anything else.
        guard let folder = opendir(directory) else { return nil }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".geojson") || name == BadgeFile.fileName { names.append(name) }
        }
        closedir(folder)
        var lines: [String] = []
        for name in names.sorted() {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            lines.append(
                "\(name)\t\(info.st_size)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\t\(info.st_ino)")
        }
        return lines.joined(separator: "\n")
    }

    /// `badges.json` of the folder, or nil when it has none.
    public static func readBadges(directory: String) throws -> HuntCatalog.Source? {
        let path =
            directory.hasSuffix("/") ? directory + BadgeFile.fileName : directory + "/" + BadgeFile.fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HuntSourceError.unreadableFile(path: path)
        }
        guard data.count <= HuntFile.maxFileBytes else { throw HuntSourceError.badgeFileTooLarge(path: path) }
        return HuntCatalog.Source(path: path, expectedID: "badges", bytes: [UInt8](data))
    }

    /// - Parameter directory: the hunts folder (`./hunts`).
    /// - Throws: `HuntSourceError` (exit 66) when the folder is missing or unreadable.
    public static func read(directory: String) throws -> [HuntCatalog.Source] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw HuntSourceError.folderNotFound(path: directory)
        }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".geojson") }
                .sorted()
        } catch {
            throw HuntSourceError.unreadableFolder(path: directory)
        }
        return try names.map { name in
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw HuntSourceError.unreadableFile(path: path)
            }
            defer { try? handle.close() }
            // Read one byte past the limit so an oversized file is reported, not loaded.
            let data = (try? handle.read(upToCount: HuntFile.maxFileBytes + 1)) ?? Data()
            var info = stat()
            let stated = fstat(handle.fileDescriptor, &info) == 0
            let modified =
                stated
                ? Date(
                    timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(
                        info.st_mtim.tv_nsec)
                        / 1e9) : nil
            return HuntCatalog.Source(
                path: path, expectedID: String(name.dropLast(".geojson".count)), bytes: [UInt8](data),
                fileSize: stated ? Int(info.st_size) : nil, modified: modified)
        }
    }
}

/// Why a hunts folder could not be read.
public enum HuntSourceError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// The folder does not exist (or is not a folder).
    case folderNotFound(path: String)
    /// The folder exists but cannot be listed.
    case unreadableFolder(path: String)
    /// A hunt or badge file cannot be read.
    case unreadableFile(path: String)
    /// `badges.json` is over `HuntFile.maxFileBytes`.
    case badgeFileTooLarge(path: String)

    /// The problem in words, naming the file or folder.
    public var description: String {
        switch self {
        case .folderNotFound(let path): return "\(path): hunts folder not found"
        case .unreadableFolder(let path): return "\(path): cannot list the hunts folder"
        case .unreadableFile(let path): return "\(path): cannot read the file"
        case .badgeFileTooLarge(let path): return "\(path): the badge file is too large"
        }
    }

    /// Unavailable input for a missing or unreadable folder or file, invalid data for an oversized
    /// badge file.
    public var errorKind: ErrorKind {
        if case .badgeFileTooLarge = self { return .invalidData }
        return .unavailableInput
    }
}

extension HuntStore {
    /// Reads the folder and syncs it (a store that remembers the folder's file stamps skips
    /// reading an unchanged folder instead).
    @discardableResult
    public func readAndSync(directory: String, force: Bool = false) async throws -> SyncOutcome {
        try await publishFiles(
            try HuntSources.read(directory: directory),
            badges: try HuntSources.readBadges(directory: directory), force: force, at: Date()
        ).outcome
    }
}
