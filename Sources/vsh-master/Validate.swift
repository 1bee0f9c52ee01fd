import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHStore

extension VSHMaster {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every hunt file of a folder; list every problem (exit 65) or say all is well.",
            discussion: """
                Checks JSON syntax, the FeatureCollection shape, required fields and their types, ids, \
                closed rings of at least 4 positions, coordinates in range, polygon validity with GEOS \
                (self-intersections, holes outside their shell), stop areas, and stop ids unique across hunts. \
                Touches no database.
                """)

        @Argument(help: ArgumentHelp("The hunts folder (default: --hunts, VSH_HUNTS or ./hunts).", valueName: "dir"))
        var directory: String?
        @OptionGroup var store: StoreOptions

        func run() throws {
            try CommandRunner.run(tool: "vsh-master") {
                let folder = directory ?? store.huntsDirectory
                let sources = try HuntSources.read(directory: folder)
                let badges = try HuntSources.readBadges(directory: folder)
                let catalog = try HuntCatalog.build(sources, badges: badges, inspector: try SpatiaLiteInspector.standalone()).get()
                let stops = catalog.hunts.reduce(0) { $0 + $1.stops.count }
                let badgeText = badges == nil ? "" : ", \(catalog.badges.count) badges"
                Output.line("\(folder): \(catalog.hunts.count) hunts, \(stops) stops\(badgeText): valid")
                return .success
            }
        }
    }
}
