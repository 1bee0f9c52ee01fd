public import VSHCore
public import VSHStore

/// The `--json` shapes of `vsh hunts` and `vsh hunt ID` (README: "JSON output").
public enum HuntJSON {
    /// A hunt's metadata with the file's field names, plus `stops` (a count, or
    /// the stops themselves) and `total_points`.
    public static func hunt(_ stored: StoredHunt, withStops: Bool) -> JSONValue {
        let hunt = stored.hunt
        var object = HuntFile.metadata(of: hunt)
        object["total_points"] = .int(hunt.totalPoints)
        if withStops {
            object["stops"] = .array(
                hunt.stops.map { stop in
                    let center = stop.geofence.bounds.center
                    return .object([
                        "id": .string(stop.id),
                        "name": .string(stop.name),
                        "description": .string(stop.description),
                        "points": .int(stop.points),
                        "image": .optional(stop.image),
                        "area_m2": .double(((stored.stopAreas[stop.id] ?? 0) * 10).rounded() / 10),
                        "center": .array([.double(center.latitude), .double(center.longitude)]),
                    ])
                })
        } else {
            object["stops"] = .int(hunt.stops.count)
        }
        return .object(object)
    }
}

/// Left-aligned columns for terminal output, sized by display width (wide
/// characters count two columns), so names in any script line up.
public struct TextTable {
    public var headers: [String]
    public var rows: [[String]] = []
    /// Columns to align right (numbers).
    public var rightAligned: Set<Int> = []

    public init(headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    public mutating func append(_ row: [String]) { rows.append(row) }

    public func render() -> [String] {
        var widths = headers.map(DisplayWidth.of)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], DisplayWidth.of(cell)) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                if i == cells.count - 1 && !rightAligned.contains(i) { return cell }
                return DisplayWidth.pad(cell, to: widths[i], right: rightAligned.contains(i))
            }.joined(separator: "  ")
        }
        return [line(headers)] + rows.map(line)
    }
}
