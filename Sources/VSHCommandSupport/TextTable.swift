import Foundation

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
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], DisplayWidth.of(cell))
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                if i == cells.count - 1 && !rightAligned.contains(i) { return cell }
                return DisplayWidth.pad(cell, to: widths[i], right: rightAligned.contains(i))
            }.joined(separator: "  ")
        }
        return [line(headers)] + rows.map(line)
    }
}
