import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Hunts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hunts", abstract: "List the published hunts, or export them as files.",
            subcommands: [List.self, Revisions.self, Export.self], defaultSubcommand: List.self)
    }
}

extension VSH.Hunts {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the published hunts (vsh sync publishes the hunts folder).")

        @OptionGroup var store: StoreOptions
        @Flag(help: "One JSON array of hunts (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let hunts = try await store.openStore(sync: false, existing: true).hunts()
                if json {
                    Output.line(
                        JSONValue.array(hunts.map { HuntJSON.hunt($0, withStops: false) }).compactText)
                    return .success
                }
                if hunts.isEmpty {
                    Output.line(
                        "No hunts published. Add hunt files to \(store.huntsDirectory)/ and run vsh sync (see the README)."
                    )
                    return .success
                }
                var table = TextTable(
                    headers: ["ID", "NAME", "DIFFICULTY", "STOPS", "POINTS"], rightAligned: [3, 4])
                for stored in hunts {
                    let hunt = stored.hunt
                    table.append([
                        hunt.id, hunt.name, hunt.difficulty.rawValue, "\(hunt.stops.count)",
                        "\(hunt.totalPoints)",
                    ])
                }
                table.render().forEach(Output.line)
                return .success
            }
        }
    }
}

extension VSH.Hunts {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract:
                "Write the published hunts (and badges.json) into a new or empty folder, as files that vsh-master validate accepts and vsh sync publishes back unchanged."
        )

        @OptionGroup var store: StoreOptions
        @Argument(help: "The folder to write (new, or empty).") var folder: String

        /// The SHA-256s of the console's pictures a hunt file names (`"pictures/<sha256>.jpg"`).
        static func uploadedPictures(in bytes: [UInt8]) -> [String] {
            String(decoding: bytes, as: UTF8.self).matches(of: #/"pictures/([0-9a-f]{64})\.jpg"/#).map {
                String($0.1)
            }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let manager = FileManager.default
                var isFolder: ObjCBool = false
                if manager.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
                    throw InputError(
                        "\(folder) is a file; vsh hunts export writes into a new or empty folder",
                        status: .usage)
                }
                if let contents = try? manager.contentsOfDirectory(atPath: folder), !contents.isEmpty {
                    throw InputError(
                        "\(folder) is not empty; vsh hunts export writes into a new or empty folder",
                        status: .usage)
                }
                let db = try await store.openStore(sync: false, existing: true)
                var files = try await db.publishedFiles()
                if files.isEmpty {
                    // Definitions that were not synced from files (a copy, an older league): written
                    // out as vsh-master writes hunt files.
                    let hunts = try await db.hunts().map(\.hunt)
                    files = hunts.map {
                        PublishedFile(name: "\($0.id).geojson", bytes: Array(HuntFile.text(of: $0).utf8))
                    }
                    let badges = try await db.badgeDefinitions()
                    if !badges.isEmpty {
                        files.append(
                            PublishedFile(
                                name: BadgeFile.fileName, bytes: Array(BadgeFile.text(of: badges).utf8)))
                    }
                }
                if files.isEmpty {
                    throw InputError("no hunts are published in \(store.databasePath)", status: .dataError)
                }
                // A name is a file of this folder, never a path out of it (a shared database is input too).
                for file in files
                where file.name.hasPrefix(".") || file.name.contains("/") || file.name.contains("\0")
                    || !(file.name.hasSuffix(".geojson") || file.name == BadgeFile.fileName)
                {
                    throw InputError(
                        "the database names a published file \"\(file.name)\" that is not a hunt file")
                }
                // Pictures uploaded in the organisers' console (`pictures/<sha256>.jpg`) go with them.
                let photos = store.photos(of: db)
                var pictures: [(name: String, bytes: [UInt8])] = []
                for sha in Set(files.flatMap { Self.uploadedPictures(in: $0.bytes) }).sorted() {
                    guard let bytes = try await photos.get(type(of: photos).key(sha256: sha)) else {
                        continue
                    }
                    pictures.append(("pictures/\(sha).jpg", bytes))
                }
                do {
                    try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    for file in files {
                        try Data(file.bytes).write(
                            to: URL(fileURLWithPath: folder + "/" + file.name), options: .atomic)
                    }
                    if !pictures.isEmpty {
                        try manager.createDirectory(
                            atPath: folder + "/pictures", withIntermediateDirectories: true)
                    }
                    for picture in pictures {
                        try Data(picture.bytes).write(
                            to: URL(fileURLWithPath: folder + "/" + picture.name), options: .atomic)
                    }
                } catch {
                    throw InputError(
                        "\(folder): cannot write the hunt files (\(error.localizedDescription))",
                        status: .ioError)
                }
                let hunts = files.filter { $0.name != BadgeFile.fileName }.count
                let badges =
                    (files.count > hunts ? " and \(BadgeFile.fileName)" : "")
                    + (pictures.isEmpty
                        ? "" : " with \(pictures.count) picture\(pictures.count == 1 ? "" : "s")")
                Output.line("exported \(hunts) hunt\(hunts == 1 ? "" : "s")\(badges) to \(folder)")
                return .success
            }
        }
    }
}

extension VSH.Hunts {
    struct Revisions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revisions",
            abstract:
                "A hunt's published revisions, newest first: when, by whom, from the organisers' console or from files."
        )

        @OptionGroup var store: StoreOptions
        @Argument(help: "The hunt id.") var id: String
        @Flag(help: "One JSON array of {revision, published_at, by, source}.") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await store.openStore(sync: false, existing: true)
                let revisions = try await db.revisions(huntID: id)
                if revisions.isEmpty, try await db.hunt(id: id) == nil {
                    throw InputError("no hunt \"\(id)\" in \(store.databasePath)", status: .dataError)
                }
                if json {
                    Output.line(
                        JSONValue.array(
                            revisions.map {
                                .object([
                                    "revision": .int($0.revision),
                                    "published_at": .string(RFC3339.format($0.publishedAt)),
                                    "by": .optional($0.by), "source": .string($0.source.rawValue),
                                ])
                            }
                        ).compactText)
                    return .success
                }
                if revisions.isEmpty {
                    Output.line(
                        "\(id): published before vsh kept revisions; the next change makes revision 1")
                    return .success
                }
                let clock = HuntClock(hunts: try await db.hunt(id: id).map { [$0.hunt] } ?? [])
                var table = TextTable(headers: ["REVISION", "PUBLISHED", "BY", "FROM"], rightAligned: [0])
                for r in revisions {
                    table.append([
                        "\(r.revision)", clock.second(r.publishedAt, hunt: id), r.by ?? "-",
                        r.source == .console ? "the console" : "files",
                    ])
                }
                table.render().forEach(Output.line)
                return .success
            }
        }
    }
}
