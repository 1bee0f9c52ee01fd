import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHSpatiaLite

/// The export formats as a command-line value.
enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
    case geojson, kml, gpx
    var format: HuntExport.Format { HuntExport.Format(rawValue: rawValue)! }
}

extension VSHMaster {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a hunt as GeoJSON, KML (Google Earth) or GPX (waypoints for a GPS app).")
        @OptionGroup var folder: FolderOptions
        @Argument(help: "The hunt id.") var id: String
        @Option(help: "geojson, kml or gpx.") var format: ExportFormat = .geojson
        @Option(
            name: .shortAndLong,
            help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
        var output: String?

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let hunts = try openFolder(folder)
                let text = try HuntExport.text(
                    try hunts.hunt(id), format: format.format, inspector: try SpatiaLiteInspector.standalone()
                )
                if let output {
                    try HuntFolder.writeAtomically(text, to: output)
                    Output.line("\(output): \(format.rawValue)")
                } else {
                    Output.text(text)
                }
                return .success
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Make a hunt file from KML (Google Earth, or a vsh export) or GeoJSON.",
            discussion: """
                A file exported by vsh-master comes back as the same hunt file, byte for byte. A file drawn \
                elsewhere needs --id and --name; its stops take their ids from the placemark or feature ids (else \
                their names) and --points when they carry none. Placemarks without a polygon are left out, with a note. \
                Images the file names are copied into the folder's images/ from beside the file; one found \
                neither there nor in the folder is left out, with a note.
                """)
        @OptionGroup var folder: FolderOptions
        @Argument(help: ArgumentHelp("A .kml or .geojson file.", valueName: "file")) var file: String
        @Option(help: "The hunt id (default: from the file).") var id: String?
        @Option(help: "The hunt name (default: from the file).") var name: String?
        @Option(help: "Points for stops that say none.") var points = 10
        @Flag(help: "Replace a hunt with the same id.") var replace = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let hunts = try openFolder(folder)
                var (hunt, notes) = try HuntImport.read(
                    path: file, options: HuntImport.Options(id: id, name: name, defaultPoints: points))
                if hunts.hunts.contains(where: { $0.id == hunt.id }) && !replace {
                    throw InputError("hunt \"\(hunt.id)\" already exists; use --replace to overwrite it")
                }
                // Images named by the file come along into this folder's images/ when they are
                // beside the file; one found in neither place is left out, with a note, rather than
                // kept as a dangling reference.
                let source = (file as NSString).deletingLastPathComponent
                func bring(_ image: String?, as name: String, for what: String) throws -> String? {
                    guard let image else { return nil }
                    let beside = image.hasPrefix("/") ? image : (source.isEmpty ? "." : source) + "/" + image
                    let target = (hunts.directory as NSString).appendingPathComponent(image)
                    // Already in this folder (a file exported from it and imported back).
                    if !image.hasPrefix("/"), FileManager.default.fileExists(atPath: target) { return image }
                    guard FileManager.default.fileExists(atPath: beside) else {
                        notes.append(
                            "\(file): \(what)'s image \(image) is neither beside the file nor in \(hunts.directory): left out"
                        )
                        return nil
                    }
                    return try hunts.keepImage(beside, as: name)
                }
                hunt.image = try bring(hunt.image, as: hunt.id, for: "hunt \(hunt.id)")
                for index in hunt.stops.indices {
                    let stop = hunt.stops[index]
                    hunt.stops[index].image = try bring(stop.image, as: stop.id, for: "stop \(stop.id)")
                }
                for note in notes { Output.error("vsh-master: \(note)") }
                try hunts.save([hunt])
                Output.line("\(hunts.path(of: hunt.id)): imported \(hunt.stops.count) stops from \(file)")
                return .success
            }
        }
    }
}
