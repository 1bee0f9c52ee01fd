/// Leaderboard ranks.
public enum Ranking {
    /// Competition ranking ("1224"): rows already sorted best first; a row with the same
    /// points as the row before it shares that row's rank, and the next different score
    /// takes its position (1, 2, 2, 4).
    /// - Returns: one rank a row, in the rows' order.
    public static func competition(points: [Int]) -> [Int] {
        var ranks: [Int] = []
        ranks.reserveCapacity(points.count)
        for (index, value) in points.enumerated() {
            ranks.append(index > 0 && points[index - 1] == value ? ranks[index - 1] : index + 1)
        }
        return ranks
    }
}
