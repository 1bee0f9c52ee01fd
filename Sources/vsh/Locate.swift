import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "locate",
            abstract: "Which stops cover a point (boundary included); else the nearest stop and how far.",
            discussion: """
                vsh locate 36.08208 -115.17284        (latitude, then longitude; decimal degrees)
                vsh locate --fixes fixes.csv          (one "lat,lon" per line; CSV "index,hunt,stop" out, \
                where index is the fix's line number)
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("A CSV file of lat,lon lines to look up in bulk.", valueName: "file"))
        var fixes: String?
        @Flag(
            help:
                "One JSON object: {inside: [{hunt, stop, name}], nearest: {hunt, stop, name, distance_m} or null}."
        )
        var json = false
        // Negative longitudes look like options to a parser; take the words as they come.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("LAT LON, or LAT,LON.", valueName: "lat lon"))
        var position: [String] = []

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                if let fixes {
                    guard position.isEmpty else {
                        throw InputError("give either LAT LON or --fixes FILE, not both", status: .usage)
                    }
                    return try await locateBatch(fixes)
                }
                return try await locateOne(try parsePosition())
            }
        }

        func parsePosition() throws -> Coordinate {
            let words = position.flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
            guard words.count == 2, let lat = Double(words[0]), let lon = Double(words[1]) else {
                throw InputError(
                    "give a position as LAT LON in decimal degrees (vsh locate 36.08208 -115.17284)",
                    status: .usage)
            }
            do {
                return try Coordinate(latitude: lat, longitude: lon)
            } catch {
                throw InputError("\(error)", status: .usage)
            }
        }

        func locateOne(_ point: Coordinate) async throws -> ExitStatus {
            let db = try await store.openStore()
            let inside = try await db.stops(covering: point, inHunt: nil)
            let nearest = inside.isEmpty ? try await db.nearestStop(to: point, inHunt: nil) : nil
            if json {
                Output.line(LocateJSON.answer(inside: inside, nearest: nearest).compactText)
            } else if !inside.isEmpty {
                for stop in inside { Output.line("inside \(stop.name) (\(stop.huntID)/\(stop.stopID))") }
            } else if let nearest {
                Output.line(
                    "no stop covers this point; nearest: \(nearest.stop.name) (\(nearest.stop.huntID)/\(nearest.stop.stopID)), "
                        + "\(Self.distanceText(nearest.distanceMeters)) away")
            } else {
                Output.line("no stops in the database")
            }
            return .success
        }

        static func distanceText(_ meters: Double) -> String {
            meters < 1000 ? "\(Int(meters.rounded())) m" : "\(Double(Int(meters / 10)) / 100) km"
        }

        /// Streams the CSV through a `BatchLocator` on the store's compiled index. The file is
        /// opened first: on two cores its first blocks are read while the league opens.
        func locateBatch(_ path: String) async throws -> ExitStatus {
            let file = try BatchLocator.Fixes(path: path)
            defer { file.close() }
            let db = try await store.openStore()
            let locator = BatchLocator(index: try await db.compiledIndex(), store: db)
            Output.line("index,hunt,stop")
            // Millions of lines: made as bytes, checked and escaped where needed by `Output.asciiLines`.
            var lines: [UInt8] = []
            lines.reserveCapacity(1 << 16)
            try await locator.locate(file) { line, hunt, stop in
                lines.append(contentsOf: String(line).utf8)
                lines.append(0x2C)
                lines.append(contentsOf: hunt.utf8)
                lines.append(0x2C)
                lines.append(contentsOf: stop.utf8)
                lines.append(0x0A)
                if lines.count >= 1 << 16 {
                    Output.asciiLines(lines)
                    lines.removeAll(keepingCapacity: true)
                }
            }
            Output.asciiLines(lines)
            return .success
        }
    }
}
