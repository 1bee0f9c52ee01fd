import Foundation
public import VSHCore

/// Looks up a file of fixes (`lat,lon` a line) against every stop: the work of
/// `vsh locate --fixes`, streamed (one line read, looked up and answered at a time).
///
/// Lookups use an in-memory `GeofenceIndex` compiled from the store; a fix within
/// rounding distance of an edge is asked of the store (`ST_Covers`), so the answers
/// are the store's. Blank lines, `#` comments and one header line before the first
/// fix are skipped.
public struct BatchLocator: Sendable {
    public let index: GeofenceIndex
    public let store: any HuntStore

    /// - Parameters:
    ///   - index: every stop, in catalog order (`GeofenceIndex(stops:)`).
    ///   - store: answers the fixes the index cannot decide.
    public init(index: GeofenceIndex, store: any HuntStore) {
        self.index = index
        self.store = store
    }

    /// Reads `path` and calls `emit(line, huntID, stopID)` for every stop covering each fix,
    /// in file order, then in catalog order for one fix.
    /// - Throws: `FixFileError` naming the file and line of the first line that is not a fix
    ///   or is out of range (exit 65); `FileAccessError` when the file cannot be opened (66).
    public func locate(path: String, emit: (Int, String, String) -> Void) async throws {
        let reader = try LineReader(path: path)
        var sawData = false
        var found: [Int] = []
        while let line = reader.next() {
            guard let (lat, lon) = Self.parse(line) else {
                let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                // A header line ("lat,lon") is allowed before the first fix.
                if !sawData && text.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                    sawData = true
                    continue
                }
                throw FixFileError.notAFix(file: path, line: reader.lineNumber)
            }
            sawData = true
            guard abs(lat) <= 90, abs(lon) <= 180 else {
                throw FixFileError.outOfRange(file: path, line: reader.lineNumber)
            }
            if index.covering(latitude: lat, longitude: lon, into: &found) {
                for i in found {
                    let entry = index.entries[i]
                    emit(reader.lineNumber, entry.huntID, entry.stopID)
                }
            } else {
                for stop in try await store.stops(covering: Coordinate(unchecked: lat, lon), inHunt: nil) {
                    emit(reader.lineNumber, stop.huntID, stop.stopID)
                }
            }
        }
    }

    /// `lat,lon[,...]` from bytes, without building strings.
    static func parse(_ line: ArraySlice<UInt8>) -> (Double, Double)? {
        guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        var end = line.endIndex
        if let second = line[(comma + 1)...].firstIndex(of: UInt8(ascii: ",")) { end = second }
        guard let lat = DecimalNumber.parse(line[line.startIndex..<comma]),
            let lon = DecimalNumber.parse(line[(comma + 1)..<end])
        else { return nil }
        return (lat, lon)
    }
}

/// A line of a fixes file that is not a fix.
public enum FixFileError: Error, Equatable, Sendable, CustomStringConvertible, ExitStatusProviding {
    /// Not `lat,lon` in decimal degrees.
    case notAFix(file: String, line: Int)
    /// A latitude beyond ±90 or a longitude beyond ±180.
    case outOfRange(file: String, line: Int)

    /// `file:line: problem`.
    public var description: String {
        switch self {
        case .notAFix(let file, let line): return "\(file):\(line): expected \"lat,lon\" in decimal degrees"
        case .outOfRange(let file, let line): return "\(file):\(line): latitude or longitude out of range"
        }
    }

    /// 65: bad input data.
    public var exitStatus: ExitStatus { .dataError }
}
