public import Foundation

/// Where a published revision of a hunt came from.
public enum RevisionSource: String, Sendable, CaseIterable {
    /// The organisers' console (`POST /v1/hunts/{id}/publish`).
    case console
    /// A hunts folder (`vsh sync`, or a command that syncs when it opens the league).
    case files
}

/// One published revision of a hunt: its number (1, 2, … for each hunt), when and by whom it was
/// published, and from where.
public struct HuntRevision: Sendable, Equatable {
    /// The hunt's id.
    public var huntID: String
    /// The revision's number: 1 for the hunt's first publication, one more for each after it.
    public var revision: Int
    /// When it was published.
    public var publishedAt: Date
    /// The organiser who published it from the console; nil for files.
    public var by: String?
    /// The console or files.
    public var source: RevisionSource

    /// A revision from its parts.
    public init(huntID: String, revision: Int, publishedAt: Date, by: String?, source: RevisionSource) {
        self.huntID = huntID
        self.revision = revision
        self.publishedAt = publishedAt
        self.by = by
        self.source = source
    }
}

/// A hunt's draft: the whole hunt file an organiser is editing in the console, not yet published.
public struct HuntDraft: Sendable, Equatable {
    /// The hunt's id.
    public var huntID: String
    /// The hunt file's bytes.
    public var bytes: [UInt8]
    /// When it was last saved.
    public var savedAt: Date
    /// The organiser who saved it last.
    public var by: String?

    /// A draft from its parts.
    public init(huntID: String, bytes: [UInt8], savedAt: Date, by: String?) {
        self.huntID = huntID
        self.bytes = bytes
        self.savedAt = savedAt
        self.by = by
    }
}

/// What a store does in one transaction to publish: the whole set of published files after it,
/// the revisions it records, and the drafts it ends.
public struct Publication: Sendable {
    /// Every hunt file published after it (the hunts it lacks are withdrawn).
    public var sources: [HuntCatalog.Source]
    /// `badges.json`, when there is one.
    public var badges: HuntCatalog.Source?
    /// The hunts that get a new revision, with where it came from and who published it.
    public var revisions: [(huntID: String, source: RevisionSource, by: String?)]
    /// When.
    public var at: Date
    /// The fingerprint of the published set this publication was planned from: the store refuses
    /// it with `PublicationRace` when another process published in between.
    public var basedOn: String?
    /// The hunts whose drafts this publication publishes (they are dropped).
    public var publishedDrafts: [String]

    /// A publication from its parts.
    public init(
        sources: [HuntCatalog.Source], badges: HuntCatalog.Source?,
        revisions: [(huntID: String, source: RevisionSource, by: String?)], at: Date, basedOn: String?,
        publishedDrafts: [String] = []
    ) {
        self.sources = sources
        self.badges = badges
        self.revisions = revisions
        self.at = at
        self.basedOn = basedOn
        self.publishedDrafts = publishedDrafts
    }

    /// The fingerprint of the published set after it.
    public var fingerprint: String { HuntCatalog.fingerprint(sources, badges: badges) }
}

/// Another process published while a publication was planned; planning again sees its work.
public struct PublicationRace: Error, Sendable {
    /// The error.
    public init() {}
}

/// Files that a sync will not publish over newer console revisions of their hunts.
public struct HuntConflicts: Error, Sendable, Equatable, CustomStringConvertible, ClassifiedError {
    /// One file and the console revision it would replace.
    public struct Conflict: Sendable, Equatable {
        /// The hunt file.
        public var file: String
        /// The hunt's latest revision, published from the console after the file last changed.
        public var revision: HuntRevision

        /// A conflict from its parts.
        public init(file: String, revision: HuntRevision) {
            self.file = file
            self.revision = revision
        }
    }

    /// Every conflict of the sync.
    public var conflicts: [Conflict]

    /// The conflicts of a sync.
    public init(_ conflicts: [Conflict]) { self.conflicts = conflicts }

    /// Data that disagrees with the database: the folder is stale.
    public var errorKind: ErrorKind { .invalidData }

    /// One line for each file, naming the revision.
    public var description: String {
        let lines = conflicts.map { conflict in
            let r = conflict.revision
            let who = r.by.map { " by \($0)" } ?? ""
            return
                "\(conflict.file): hunt \"\(r.huntID)\" has revision \(r.revision), published from the console\(who) at \(RFC3339.format(r.publishedAt)), after this file last changed; the file was not published"
        }
        return lines.joined(separator: "\n")
    }
}

extension HuntStore {
    /// Syncs hunt files (`sync(_:badges:force:at:)`) as of now, without force.
    @discardableResult
    public func sync(_ sources: [HuntCatalog.Source], badges: HuntCatalog.Source?) async throws -> SyncOutcome
    {
        try await publishFiles(sources, badges: badges, force: false, at: Date()).outcome
    }

    /// Syncs a folder (`sync(directory:force:)`) without force.
    @discardableResult
    public func sync(directory: String) async throws -> SyncOutcome {
        try await sync(directory: directory, force: false)
    }

    /// Publishes a folder's hunt files as new revisions of the hunts whose files changed.
    ///
    /// A file that differs from its hunt's published file becomes a new revision (source
    /// `files`), unless the hunt's latest revision came from the console after the file last
    /// changed: then nothing is published and `HuntConflicts` names each such file and revision
    /// (`force` publishes the files anyway). A hunt the folder lacks is withdrawn when its latest
    /// revision came from files, and kept when it came from the console. Every hunt is validated
    /// with the others before anything is written.
    /// - Returns: what changed, and the fingerprint of the published set after it.
    public func publishFiles(
        _ sources: [HuntCatalog.Source], badges: HuntCatalog.Source?, force: Bool, at now: Date
    ) async throws -> (outcome: SyncOutcome, fingerprint: String) {
        var attempt = 0
        while true {
            attempt += 1
            let stored = try await publishedFingerprint()
            let folder = HuntCatalog.fingerprint(sources, badges: badges)
            if folder == stored { return (.unchanged, folder) }
            let current = try await currentFiles()
            let latest = try await latestRevisions()
            var merged: [HuntCatalog.Source] = []
            var revisions: [(huntID: String, source: RevisionSource, by: String?)] = []
            var conflicts: [HuntConflicts.Conflict] = []
            for source in sources {
                if current.hunts[source.expectedID]?.bytes == source.bytes {
                    merged.append(source)
                    continue
                }
                if let revision = latest[source.expectedID], revision.source == .console, !force,
                    !(source.modified.map { $0 > revision.publishedAt } ?? false)
                {
                    conflicts.append(.init(file: source.path, revision: revision))
                    continue
                }
                merged.append(source)
                revisions.append((source.expectedID, .files, nil))
            }
            if !conflicts.isEmpty { throw HuntConflicts(conflicts) }
            let inFolder = Set(sources.map(\.expectedID))
            for (id, file) in current.hunts where !inFolder.contains(id) && latest[id]?.source == .console {
                merged.append(HuntCatalog.Source(path: file.name, expectedID: id, bytes: file.bytes))
            }
            merged.sort { "\($0.expectedID).geojson" < "\($1.expectedID).geojson" }
            let publication = Publication(
                sources: merged, badges: badges, revisions: revisions, at: now, basedOn: stored)
            if publication.fingerprint == stored { return (.unchanged, stored ?? "") }
            do {
                return (try await publish(publication), publication.fingerprint)
            } catch is PublicationRace where attempt < 5 {
                continue
            }
        }
    }

    /// Publishes one hunt file from the console as the hunt's next revision, with every other
    /// published hunt as it is, and drops the hunt's draft.
    /// - Returns: the hunt's latest revision (the one it already has when the file is the one
    ///   published).
    /// - Throws: `HuntFileErrors` when the file, or the set with it, is not valid.
    public func publishFromConsole(huntID: String, bytes: [UInt8], by: String, at now: Date) async throws
        -> HuntRevision?
    {
        var attempt = 0
        while true {
            attempt += 1
            let stored = try await publishedFingerprint()
            let current = try await currentFiles()
            var sources = current.hunts.filter { $0.key != huntID }.map {
                HuntCatalog.Source(path: $0.value.name, expectedID: $0.key, bytes: $0.value.bytes)
            }
            sources.append(HuntCatalog.Source(path: "\(huntID).geojson", expectedID: huntID, bytes: bytes))
            sources.sort { "\($0.expectedID).geojson" < "\($1.expectedID).geojson" }
            let badges = current.badges.map {
                HuntCatalog.Source(path: $0.name, expectedID: "badges", bytes: $0.bytes)
            }
            let unchanged = current.hunts[huntID]?.bytes == bytes
            let publication = Publication(
                sources: sources, badges: badges,
                revisions: unchanged ? [] : [(huntID, .console, by)], at: now, basedOn: stored,
                publishedDrafts: [huntID])
            do {
                _ = try await publish(publication)
                return try await latestRevisions()[huntID]
            } catch is PublicationRace where attempt < 5 {
                continue
            }
        }
    }

    /// The published files by hunt id, and `badges.json`. Definitions that were not published
    /// from files (a copy, `replace(with:)`, an older league) are written out as `vsh-master`
    /// writes hunt files.
    public func currentFiles() async throws -> (hunts: [String: PublishedFile], badges: PublishedFile?) {
        var files = try await publishedFiles()
        if files.isEmpty {
            files = try await hunts().map {
                PublishedFile(name: "\($0.hunt.id).geojson", bytes: Array(HuntFile.text(of: $0.hunt).utf8))
            }
            let badges = try await badgeDefinitions()
            if !badges.isEmpty {
                files.append(
                    PublishedFile(name: BadgeFile.fileName, bytes: Array(BadgeFile.text(of: badges).utf8)))
            }
        }
        var hunts: [String: PublishedFile] = [:]
        var badges: PublishedFile?
        for file in files {
            if file.name == BadgeFile.fileName {
                badges = file
            } else if file.name.hasSuffix(".geojson") {
                hunts[String(file.name.dropLast(".geojson".count))] = file
            }
        }
        return (hunts, badges)
    }
}
