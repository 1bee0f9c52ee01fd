public import Foundation

/// All hunts of a hunts folder, validated together: each file on its own, then
/// stop ids across files.
public struct HuntCatalog: Sendable {
    /// The hunts, in file-name order.
    public let hunts: [Hunt]
    /// The badges of `badges.json`, when the folder has one.
    public var badges: [Badge] = []

    /// One hunt file's content, with the path errors should name.
    public struct Source: Sendable {
        /// The file the bytes came from.
        public var path: String
        /// The hunt id the file name implies (`strip-classics` for `strip-classics.geojson`).
        public var expectedID: String
        /// The file's bytes (for a file over `HuntFile.maxFileBytes`, only the first bytes past the limit).
        public var bytes: [UInt8]
        /// The file's size on disk, when larger than `bytes` (a file read only up to the limit).
        public var fileSize: Int?
        /// When the file was last changed, for a file read from a folder: a sync publishes a file
        /// over a newer console revision of its hunt only when the file changed after it.
        public var modified: Date?

        /// A source from its path, the id its name implies, its bytes, its size on disk and when
        /// it was last changed.
        public init(
            path: String, expectedID: String, bytes: [UInt8], fileSize: Int? = nil, modified: Date? = nil
        ) {
            self.path = path
            self.expectedID = expectedID
            self.bytes = bytes
            self.fileSize = fileSize
            self.modified = modified
        }
    }

    /// Validates every source (and `badges.json`, when given); the catalog exists only when all are valid.
    /// - Returns: the catalog, or every problem in every file.
    public static func build(_ sources: [Source], badges: Source? = nil, inspector: some GeofenceInspector)
        -> Result<HuntCatalog, HuntFileErrors>
    {
        var errors: [HuntFileError] = []
        var hunts: [Hunt] = []
        var stopOwners: [String: String] = [:]
        var joinCodeOwners: [String: String] = [:]
        var stopCodeOwners: [String: String] = [:]
        var huntIDs = Set<String>()
        for source in sources {
            if source.bytes.count > HuntFile.maxFileBytes {
                // Not parsed: the size said is the file's own, not what was read of it.
                let size = max(source.fileSize ?? 0, source.bytes.count)
                errors.append(
                    HuntFileError(
                        file: source.path, problem: .tooLarge(bytes: size, limit: HuntFile.maxFileBytes)))
                continue
            }
            switch HuntFile.read(
                source.bytes, file: source.path, expectedID: source.expectedID, inspector: inspector)
            {
            case .failure(let failure):
                errors += failure.errors
            case .success(let hunt):
                if !huntIDs.insert(hunt.id).inserted {
                    errors.append(HuntFileError(file: source.path, problem: .duplicateHunt(id: hunt.id)))
                    continue
                }
                var clean = true
                if let code = hunt.joinCode {
                    if let owner = joinCodeOwners[code] {
                        errors.append(
                            HuntFileError(
                                file: source.path,
                                problem: .invalidValue(
                                    field: "join_code",
                                    reason: "is the join code of \(owner) too: each hunt needs its own")))
                        clean = false
                    } else {
                        joinCodeOwners[code] = source.path
                    }
                }
                for stop in hunt.stops {
                    // A printed code names its stop: a player who scans it needs no other help.
                    if let code = stop.code?.revealed {
                        if let owner = stopCodeOwners[code] {
                            errors.append(
                                HuntFileError(
                                    file: source.path, stop: stop.id,
                                    problem: .invalidValue(
                                        field: "code",
                                        reason:
                                            "is the code of stop \"\(owner)\" too: each stop needs its own")))
                            clean = false
                        } else {
                            stopCodeOwners[code] = stop.id
                        }
                    }
                    if let owner = stopOwners[stop.id] {
                        errors.append(
                            HuntFileError(
                                file: source.path, stop: stop.id,
                                problem: .duplicateStop(id: stop.id, firstFile: owner)))
                        clean = false
                    } else {
                        stopOwners[stop.id] = source.path
                    }
                }
                if clean { hunts.append(hunt) }
            }
        }
        var catalog = HuntCatalog(hunts: hunts)
        if let badges {
            switch BadgeFile.read(badges.bytes, file: badges.path, huntIDs: huntIDs) {
            case .success(let list): catalog.badges = list
            case .failure(let failure): errors += failure.errors
            }
        }
        return errors.isEmpty ? .success(catalog) : .failure(HuntFileErrors(errors))
    }

    /// A catalog of hunts (and badges) already validated by the caller.
    public init(hunts: [Hunt], badges: [Badge] = []) {
        self.hunts = hunts
        self.badges = badges
    }
}

extension HuntCatalog {
    /// A fingerprint of a set of hunt files: SHA-256 over each file's name and content hash.
    /// File names only, not folders, so the same files reached by another path do not trigger a
    /// re-sync. Every backend keeps it to know when the files changed.
    public static func fingerprint(_ sources: [Source], badges: Source?) -> String {
        var hasher = SHA256()
        for source in sources.sorted(by: { $0.expectedID < $1.expectedID }) {
            hasher.update(Array("\(source.expectedID).geojson\u{0}\(SHA256.hex(source.bytes))\n".utf8))
        }
        if let badges { hasher.update(Array("\(BadgeFile.fileName)\u{0}\(SHA256.hex(badges.bytes))\n".utf8)) }
        return hasher.finalizeHex()
    }
}
