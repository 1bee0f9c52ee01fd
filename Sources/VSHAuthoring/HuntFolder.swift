import Foundation
public import VSHCore
import VSHHost

/// A folder of hunt files being edited by `vsh-master`.
///
/// Every edit is checked against the whole folder (the edited hunt, the other
/// hunts, `badges.json`) before anything is written; a refused edit leaves
/// every file as it was. Files are written atomically (a temporary file in the
/// same folder, then rename) in the canonical form `HuntFile.text(of:)`.
public final class HuntFolder {
    public let directory: String
    public private(set) var hunts: [Hunt]
    let inspector: any GeometryOperations
    /// Draws a JPEG anew before `keepImage` writes it into the folder (the tool sets one that keeps
    /// pixels only: an organiser's camera, name and GPS stay out of a folder that gets published).
    public var redrawJPEG: (([UInt8]) throws -> [UInt8])?
    private var sources: [HuntCatalog.Source]
    private let badges: HuntCatalog.Source?

    /// Loads a folder; every file must be valid.
    /// - Throws: `HuntFileErrors` listing every problem, or `HuntSourceError` (66) for a missing folder.
    public init(directory: String, inspector: any GeometryOperations) throws {
        self.directory = directory
        self.inspector = inspector
        sources = try HuntSources.read(directory: directory)
        badges = try HuntSources.readBadges(directory: directory)
        hunts = try HuntCatalog.build(sources, badges: badges, inspector: inspector).get().hunts
    }

    public func path(of huntID: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + huntID + ".geojson"
    }

    public func hunt(_ id: String) throws -> Hunt {
        guard let hunt = hunts.first(where: { $0.id == id }) else {
            throw AuthoringError.unknownHunt(id: id, folder: directory, known: hunts.map(\.id))
        }
        return hunt
    }

    /// The hunt holding a stop, and the stop's index in it.
    public func locate(stop id: String) throws -> (hunt: Hunt, index: Int) {
        for hunt in hunts {
            if let index = hunt.stops.firstIndex(where: { $0.id == id }) { return (hunt, index) }
        }
        throw AuthoringError.unknownStop(id: id, folder: directory)
    }

    /// Validates the folder as it would be with `changed` hunts written and
    /// `removed` hunts deleted, then writes them. Nothing is written when anything is invalid.
    public func save(_ changed: [Hunt], removing removed: [String] = []) throws {
        var proposed = sources.filter { source in
            !removed.contains(source.expectedID) && !changed.contains { $0.id == source.expectedID }
        }
        var texts: [(path: String, text: String)] = []
        for hunt in changed {
            let text = HuntFile.text(of: hunt)
            texts.append((path(of: hunt.id), text))
            proposed.append(
                HuntCatalog.Source(path: path(of: hunt.id), expectedID: hunt.id, bytes: Array(text.utf8)))
        }
        let catalog = try HuntCatalog.build(
            proposed.sorted { $0.expectedID < $1.expectedID }, badges: badges, inspector: inspector
        ).get()
        for (path, text) in texts { try Self.writeAtomically(text, to: path) }
        for id in removed where FileManager.default.fileExists(atPath: path(of: id)) {
            try FileManager.default.removeItem(atPath: path(of: id))
        }
        sources = proposed
        hunts = catalog.hunts
    }

    /// Writes text to a file atomically: a temporary file beside it, flushed, then renamed.
    public static func writeAtomically(_ text: String, to path: String) throws {
        let temporary =
            (path as NSString).deletingLastPathComponent
            + "/.\((path as NSString).lastPathComponent).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AuthoringError.cannotWrite(path: path, reason: "cannot write here") }
        let ok = DurableFile.writeAll(Array(text.utf8), to: fd, sync: true)
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw AuthoringError.cannotWrite(path: path, reason: "cannot write the file (disk full?)")
        }
    }

    /// Copies a picture into the folder's `images/` as `<name>.<ext>` (a JPEG through
    /// `redrawJPEG` when set) and returns the path to put in a hunt file (relative to the folder).
    public func keepImage(_ file: String, as name: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            throw AuthoringError.imageNotFound(file: file)
        }
        let ext = (file as NSString).pathExtension.lowercased()
        guard ["jpg", "jpeg", "png", "webp", "gif"].contains(ext) else {
            throw AuthoringError.unsupportedImage(file: file)
        }
        let folder = (directory.hasSuffix("/") ? directory : directory + "/") + "images"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let relative = "images/\(name).\(ext == "jpeg" ? "jpg" : ext)"
        let target = (directory.hasSuffix("/") ? directory : directory + "/") + relative
        guard var data = FileManager.default.contents(atPath: file) else {
            throw AuthoringError.unreadableImage(file: file)
        }
        if ext == "jpg" || ext == "jpeg", let redrawJPEG {
            guard let drawn = try? redrawJPEG([UInt8](data)) else {
                throw AuthoringError.unreadableImage(file: file)
            }
            data = Data(drawn)
        }
        do {
            try data.write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw AuthoringError.cannotWriteImage(path: target)
        }
        return relative
    }
}
