import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHHost
import VSHSpatiaLite

extension VSHMaster {
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract:
                "Check every hunt file of a folder; list every problem (exit 65) or say all is well, with warnings.",
            discussion: """
                Checks JSON syntax, the FeatureCollection shape, required fields and their types, ids, \
                closed rings of at least 4 positions, coordinates in range, polygon validity with GEOS \
                (self-intersections, holes outside their shell), stop areas, stop ids unique across hunts, \
                and badges.json. Then warns about what an organiser would want to know: overlapping stops, \
                stops far smaller or larger than a landmark, stops of one hunt far apart, a tolerance larger \
                than a stop, hunts without stops. Touches no database.
                """)

        @Argument(
            help: ArgumentHelp("The hunts folder (default: --hunts, VSH_HUNTS or ./hunts).", valueName: "dir")
        )
        var directory: String?
        @OptionGroup var folder: FolderOptions

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let path = directory ?? folder.directory
                let inspector = try SpatiaLiteInspector.standalone()
                let sources = try HuntSources.read(directory: path)
                let badges = try HuntSources.readBadges(directory: path)
                let catalog = try HuntCatalog.build(sources, badges: badges, inspector: inspector).get()
                let warnings = try HuntLint.warnings(catalog.hunts, folder: path, inspector: inspector)
                for warning in warnings { Output.line("warning: \(warning)") }
                let stops = catalog.hunts.reduce(0) { $0 + $1.stops.count }
                let badgeText = badges == nil ? "" : ", \(catalog.badges.count) badges"
                let warningText =
                    warnings.isEmpty ? "" : " (\(warnings.count) warning\(warnings.count == 1 ? "" : "s"))"
                Output.line(
                    "\(path): \(catalog.hunts.count) hunts, \(stops) stops\(badgeText): valid\(warningText)")
                return .success
            }
        }
    }

    struct Format: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "format",
            abstract: "Rewrite every hunt file in vsh-master's stable form (key order, 7 decimals, layout).")
        @OptionGroup var folder: FolderOptions
        @Flag(help: "Only say which files would change; exit 1 if any would.") var check = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let hunts = try openFolder(folder)
                var changed: [Hunt] = []
                for hunt in hunts.hunts {
                    let current = FileManager.default.contents(atPath: hunts.path(of: hunt.id)).map {
                        String(decoding: $0, as: UTF8.self)
                    }
                    if current != HuntFile.text(of: hunt) { changed.append(hunt) }
                }
                for hunt in changed {
                    Output.line("\(hunts.path(of: hunt.id)): \(check ? "not formatted" : "formatted")")
                }
                if check { return changed.isEmpty ? .success : .rejected }
                if !changed.isEmpty { try hunts.save(changed) }
                return .success
            }
        }
    }
}
