import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHStore

extension VSH {
    struct Locate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which stops cover a point (boundary included); else the nearest stop and how far.",
            discussion: """
                vsh locate 36.08208 -115.17284        (latitude, then longitude; decimal degrees)
                vsh locate --fixes fixes.csv          (one "lat,lon" per line; CSV "index,hunt,stop" out, \
                where index is the fix's line number)
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("A CSV file of lat,lon lines to look up in bulk.", valueName: "file"))
        var fixes: String?
        @Flag(help: "One JSON object: {inside: [{hunt, stop, name}], nearest: {hunt, stop, name, distance_m} or null}.")
        var json = false
        // Negative longitudes look like options to a parser; take the words as they come.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("LAT LON, or LAT,LON.", valueName: "lat lon"))
        var position: [String] = []

        func run() throws {
            try CommandRunner.run(tool: "vsh") {
                if let fixes {
                    guard position.isEmpty else { throw InputError("give either LAT LON or --fixes FILE, not both", status: .usage) }
                    return try locateBatch(fixes)
                }
                return try locateOne(try parsePosition())
            }
        }

        func parsePosition() throws -> Coordinate {
            let words = position.flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
            guard words.count == 2, let lat = Double(words[0]), let lon = Double(words[1]) else {
                throw InputError("give a position as LAT LON in decimal degrees (vsh locate 36.08208 -115.17284)", status: .usage)
            }
            do {
                return try Coordinate(latitude: lat, longitude: lon)
            } catch {
                throw InputError("\(error)", status: .usage)
            }
        }

        func locateOne(_ point: Coordinate) throws -> ExitStatus {
            let db = try store.openStore()
            let inside = try db.stops(covering: point)
            let nearest = inside.isEmpty ? try db.nearestStop(to: point) : nil
            if json {
                let nearestJSON: JSONValue = nearest.map { found in
                    .object([
                        "hunt": .string(found.stop.huntID), "stop": .string(found.stop.stopID),
                        "name": .string(found.stop.name),
                        "distance_m": .double((found.distanceMeters * 10).rounded() / 10),
                    ])
                } ?? .null
                let insideJSON = JSONValue.array(
                    inside.map { .object(["hunt": .string($0.huntID), "stop": .string($0.stopID), "name": .string($0.name)]) })
                Output.line(JSONValue.object(["inside": insideJSON, "nearest": nearestJSON]).compactText)
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

        /// Streams the CSV: one line read, looked up and written at a time.
        /// Lookups use the in-memory `GeofenceIndex` compiled from the store;
        /// a fix within rounding distance of an edge is asked of SpatiaLite.
        func locateBatch(_ path: String) throws -> ExitStatus {
            let reader = try LineReader(path: path)
            let db = try store.openStore()
            let index = try db.compiledIndex()
            Output.line("index,hunt,stop")
            var sawData = false
            var found: [Int] = []
            var out: [UInt8] = []
            out.reserveCapacity(64)
            while let line = reader.next() {
                guard let (lat, lon) = FixParser.parse(line) else {
                    let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                    if text.isEmpty || text.hasPrefix("#") { continue }
                    // A header line ("lat,lon") is allowed before the first fix.
                    if !sawData && text.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                        sawData = true
                        continue
                    }
                    throw InputError("\(path):\(reader.lineNumber): expected \"lat,lon\" in decimal degrees")
                }
                sawData = true
                guard abs(lat) <= 90, abs(lon) <= 180 else {
                    throw InputError("\(path):\(reader.lineNumber): latitude or longitude out of range")
                }
                if index.covering(latitude: lat, longitude: lon, into: &found) {
                    for i in found {
                        let entry = index.entries[i]
                        Output.line("\(reader.lineNumber),\(entry.huntID),\(entry.stopID)")
                    }
                } else {
                    for stop in try db.stops(covering: Coordinate(unchecked: lat, lon)) {
                        Output.line("\(reader.lineNumber),\(stop.huntID),\(stop.stopID)")
                    }
                }
            }
            return .success
        }
    }
}

/// `lat,lon[,...]` from bytes, without building strings (strtod on a small stack buffer).
enum FixParser {
    static func parse(_ line: ArraySlice<UInt8>) -> (Double, Double)? {
        guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        var end = line.endIndex
        if let second = line[(comma + 1)...].firstIndex(of: UInt8(ascii: ",")) { end = second }
        guard let lat = number(line[line.startIndex..<comma]), let lon = number(line[(comma + 1)..<end]) else { return nil }
        return (lat, lon)
    }

    static func number(_ bytes: ArraySlice<UInt8>) -> Double? { DecimalNumber.parse(bytes) }
}
