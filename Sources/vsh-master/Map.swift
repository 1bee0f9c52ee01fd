import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHXML

extension VSHMaster {
    struct MapCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "map",
            abstract:
                "Draw a hunt as an SVG map: stops with names, scale bar, north arrow, and a walk if given.")
        @OptionGroup var folder: FolderOptions
        @Argument(help: "The hunt id.") var id: String
        @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file to write.", valueName: "hunt.svg"))
        var output: String
        @Option(help: ArgumentHelp("A GPX walk to draw over the stops.", valueName: "walk.gpx")) var track:
            String?

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let hunt = try openFolder(folder).hunt(id)
                var points: [Coordinate] = []
                if let track {
                    try GPXReader.read(path: track) { event in
                        if case .point(let p) = event, p.kind == .track { points.append(p.coordinate) }
                    } restart: {
                        points.removeAll()
                    }
                }
                try MapRenderer.write(hunts: [hunt], track: points, to: output)
                Output.line(
                    "\(output): \(hunt.stops.count) stops"
                        + (track == nil ? "" : ", \(points.count) track points"))
                return .success
            }
        }
    }
}
