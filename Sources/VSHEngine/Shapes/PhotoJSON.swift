import Foundation
public import VSHCore

/// Output shapes for photo metadata (`vsh exif`).
public enum PhotoJSON {
    /// `{file, lat, lon, altitude_m, gps_time, taken_at, utc_offset, accuracy_m, make, model, software, width, height}`.
    public static func metadata(_ m: PhotoMetadata, file: String) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        func integer(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
        return .object([
            "file": .string(file),
            "lat": number(m.latitude.map(Coordinate.printed)),
            "lon": number(m.longitude.map(Coordinate.printed)),
            "altitude_m": number(m.altitudeMeters),
            "gps_time": .optional(m.gpsTime.map(RFC3339.format)),
            "taken_at": .optional(m.takenAtText),
            "utc_offset": .optional(m.utcOffsetSeconds.map(PhotoMetadata.offsetText)),
            "accuracy_m": number(m.accuracyMeters),
            "make": .optional(m.make), "model": .optional(m.model), "software": .optional(m.software),
            "width": integer(m.width), "height": integer(m.height),
        ])
    }

    /// A few aligned lines for a person.
    public static func describe(_ m: PhotoMetadata, file: String) -> [String] {
        var lines = [file]
        func add(_ label: String, _ value: String?) {
            if let value {
                lines.append("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + value)
            }
        }
        if let lat = m.latitude, let lon = m.longitude {
            add(
                "position",
                "\(Coordinate.printed(lat)), \(Coordinate.printed(lon))"
                    + (m.accuracyMeters.map { " (±\(Int($0.rounded())) m)" } ?? ""))
        } else {
            add("position", "none (\(m.positionNote ?? "no GPS"))")
        }
        add("altitude", m.altitudeMeters.map { "\($0) m" })
        add("GPS time", m.gpsTime.map(RFC3339.format))
        add("taken at", m.takenAtText)
        let camera = [m.make, m.model].compactMap { $0 }.joined(separator: " ")
        add("camera", camera.isEmpty ? nil : camera)
        add("software", m.software)
        if let w = m.width, let h = m.height { add("size", "\(w) x \(h)") }
        return lines
    }
}
