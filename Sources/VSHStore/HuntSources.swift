import Foundation
public import VSHCore

/// Reads the hunt files of a folder: every `*.geojson`, sorted by name, and `badges.json`.
public enum HuntSources {
    /// Each hunt file's name, size and modification time (to the nanosecond):
    /// when it equals the last synced one, the files need not be read and hashed.
    public static func statSignature(directory: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var lines: [String] = []
        for name in names.sorted() where name.hasSuffix(".geojson") || name == BadgeFile.fileName {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            lines.append("\(name)\t\(info.st_size)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\t\(info.st_ino)")
        }
        return lines.joined(separator: "\n")
    }

    /// `badges.json` of the folder, or nil when it has none.
    public static func readBadges(directory: String) throws -> HuntCatalog.Source? {
        let path = directory.hasSuffix("/") ? directory + BadgeFile.fileName : directory + "/" + BadgeFile.fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError("\(path): cannot read the badge file", status: .noInput)
        }
        guard data.count <= HuntFile.maxFileBytes else { throw InputError("\(path): the badge file is too large") }
        return HuntCatalog.Source(path: path, expectedID: "badges", bytes: [UInt8](data))
    }

    /// - Parameter directory: the hunts folder (`./hunts`).
    /// - Throws: `InputError` with exit 66 when the folder is missing or unreadable.
    public static func read(directory: String) throws -> [HuntCatalog.Source] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InputError("\(directory): hunts folder not found (set --hunts or VSH_HUNTS)", status: .noInput)
        }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".geojson") }.sorted()
        } catch {
            throw InputError("\(directory): cannot list the hunts folder", status: .noInput)
        }
        return try names.map { name in
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw InputError("\(path): cannot read the hunt file", status: .noInput)
            }
            defer { try? handle.close() }
            // Read one byte past the limit so an oversized file is reported, not loaded.
            let data = (try? handle.read(upToCount: HuntFile.maxFileBytes + 1)) ?? Data()
            return HuntCatalog.Source(
                path: path, expectedID: String(name.dropLast(".geojson".count)), bytes: [UInt8](data))
        }
    }
}
