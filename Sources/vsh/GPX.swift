import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHXML

extension VSH {
    struct GPX: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gpx",
            abstract: "Statistics of a GPX file: tracks, points, geodesic length, time span, elevations.",
            discussion:
                "Streams the file (any size). Invalid points are skipped with a warning naming their line; a file whose every point is invalid is an error (exit 65)."
        )

        @Argument(help: ArgumentHelp("A GPX 1.0 or 1.1 file.", valueName: "file")) var file: String
        @Flag(help: "One JSON object (shape in the README).") var json = false

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let stats = try GPXStatistics.of(path: file)
                for skipped in stats.skipped {
                    Output.error("vsh: \(file):\(skipped.line): point skipped: \(skipped.reason)")
                }
                // Points, and not one of them usable: statistics of nothing would look like a result.
                if stats.points + stats.routePoints + stats.waypoints == 0, !stats.skipped.isEmpty {
                    throw InputError(
                        "\(file): no usable point (\(stats.skipped.count) skipped, every one invalid)")
                }
                if json {
                    Output.line(GPXJSON.statistics(stats, file: file).compactText)
                    return .success
                }
                Output.line(file + (stats.version.map { " (GPX \($0))" } ?? ""))
                Output.line("  tracks \(stats.tracks), segments \(stats.segments), points \(stats.points)")
                Output.line(
                    "  routes \(stats.routes) with \(stats.routePoints) points, waypoints \(stats.waypoints)")
                Output.line("  length \(String(format: "%.1f", stats.lengthMeters)) m (geodesic, tracks)")
                if let start = stats.start, let end = stats.end {
                    Output.line("  from \(RFC3339.format(start)) to \(RFC3339.format(end))")
                }
                if let low = stats.minElevationMeters, let high = stats.maxElevationMeters {
                    Output.line("  elevation \(low) m to \(high) m")
                }
                return .success
            }
        }
    }
}
