import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHHost
import VSHXML

extension VSHMaster {
    struct BasemapCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "basemap",
            abstract:
                "The base layer of vsh's own maps: the streets, paths, buildings and water of the hunts' area.",
            subcommands: [ImportBasemap.self])
    }

    struct ImportBasemap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract:
                "Import an OpenStreetMap extract (.osm, .osm.pbf through osmium-tool, or GeoJSON) as hunts/basemap.json.",
            discussion: """
                The maps of the web app and the organisers' console draw its streets, footpaths, buildings and \
                water under the stops, so that a stop can be checked against the street it is on. Cut the \
                extract to the hunts' area first (osmium extract -b WEST,SOUTH,EAST,NORTH); at most \
                \(OSMReader.maxNodes) nodes and \(OSMReader.maxFeatures) features are read. Data from \
                OpenStreetMap is shown with its attribution.
                """)
        @OptionGroup var folder: FolderOptions
        @Argument(help: ArgumentHelp("The extract: .osm, .osm.pbf, .geojson or .json.", valueName: "file"))
        var file: String

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let lower = file.lowercased()
                let features: [BasemapFeature]
                let attribution: String?
                if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
                    let bytes = try Self.read(file)
                    features = try Basemap.features(geoJSON: bytes, file: file)
                    attribution = Self.attribution(of: bytes)
                } else if lower.hasSuffix(".osm.pbf") || lower.hasSuffix(".pbf") {
                    features = try Self.fromPBF(file)
                    attribution = Basemap.osmAttribution
                } else if lower.hasSuffix(".osm") || lower.hasSuffix(".xml") {
                    features = try OSMReader.read(path: file)
                    attribution = Basemap.osmAttribution
                } else {
                    throw InputError(
                        "\(file): not .osm, .osm.pbf, .geojson or .json; export the area from OpenStreetMap as one of them",
                        status: .usage)
                }
                guard !features.isEmpty else {
                    throw InputError(
                        "\(file): no streets, paths, buildings or water in it", status: .dataError)
                }
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder.directory, isDirectory: &isFolder),
                    isFolder.boolValue
                else {
                    throw InputError("\(folder.directory): hunts folder not found", status: .noInput)
                }
                let target = folder.directory + "/" + Basemap.fileName
                let text = Basemap.text(
                    features, attribution: attribution, source: (file as NSString).lastPathComponent)
                do {
                    try HuntFolder.writeAtomically(text, to: target)
                } catch {
                    throw InputError(
                        "\(target): cannot write (\(error.localizedDescription))", status: .ioError)
                }
                let counts = BasemapFeature.Kind.allCases.map { kind in
                    "\(features.filter { $0.kind == kind }.count) \(kind.rawValue == "footway" ? "footpaths" : kind.rawValue == "water" ? "waters" : kind.rawValue + "s")"
                }
                Output.line("\(target): \(counts.joined(separator: ", ")) from \(file)")
                return .success
            }
        }

        /// The file's bytes, up to the basemap limit.
        static func read(_ path: String) throws -> [UInt8] {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw InputError("\(path): cannot open the file", status: .noInput)
            }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: Basemap.maxFileBytes + 1)) ?? Data()
            if data.count > Basemap.maxFileBytes {
                throw InputError(
                    "\(path): over \(Basemap.maxFileBytes >> 20) MiB; cut the extract to the hunts' area first",
                    status: .dataError)
            }
            return [UInt8](data)
        }

        /// The `attribution` a GeoJSON file carries (one of vsh's own basemaps), if any.
        static func attribution(of bytes: [UInt8]) -> String? {
            guard case .object(let root)? = try? JSONValue.parse(bytes),
                case .string(let text)? = root["attribution"]
            else { return nil }
            return text
        }

        /// A `.osm.pbf` read through Debian's osmium-tool (`osmium cat` to OSM XML in a private folder).
        static func fromPBF(_ path: String) throws -> [BasemapFeature] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw InputError("\(path): cannot open the file", status: .noInput)
            }
            let work = FileManager.default.temporaryDirectory.appendingPathComponent(
                "vsh-basemap-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: work) }
            let xml = work.appendingPathComponent("extract.osm").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "osmium", "cat", "--no-progress", "-f", "osm,add_metadata=false", "-o", xml, path,
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                throw InputError(
                    "\(path): reading .osm.pbf needs osmium-tool (apt-get install osmium-tool)",
                    status: .noInput)
            }
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                if process.terminationStatus == 127 {
                    throw InputError(
                        "\(path): reading .osm.pbf needs osmium-tool (apt-get install osmium-tool)",
                        status: .noInput)
                }
                let line = message.split(separator: "\n").last.map(String.init) ?? "osmium failed"
                throw InputError("\(path): not a readable .osm.pbf (\(line))", status: .dataError)
            }
            return try OSMReader.read(path: xml)
        }
    }
}
