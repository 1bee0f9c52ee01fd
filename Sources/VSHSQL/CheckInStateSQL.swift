public import VSHCore

/// `CheckInState`'s conditions in SQL, written once for both SQL adapters (SpatiaLite and
/// PostgreSQL spell them alike) and built from the Swift type's own cases: each is a predicate
/// over a row of `checkins` (`canCount`) or of the `checkin_state` view (the others), whose
/// column names may take a table alias (`"c."`).
public enum CheckInStateSQL {
    /// Verdicts a check-in must have had to count or be live now; the live index covers them.
    public static func canCount(_ alias: String = "") -> String {
        "\(alias)verdict IN (\(quoted(CheckInState.verdictsThatCanCount.map(\.rawValue))))"
    }

    /// It counts now (`CheckInState.counts`).
    public static func counts(_ alias: String = "") -> String { states(alias, CheckInState.all(\.counts)) }

    /// It stands in the player's history (`CheckInState.isLive`), written as the states it is not
    /// in: `state` is never NULL and always one of `CheckInState`'s (a verdict, or a review's).
    /// PostgreSQL cannot see inside the view's `state` and guesses that `IN` keeps few rows and
    /// `NOT IN` most: with `IN` it read every earlier (or later) fix of the player and sorted
    /// them to keep one, a cost growing with the player's history; with `NOT IN` it walks the
    /// live index in time order and stops at the first (`PostGISPlanTests`).
    public static func isLive(_ alias: String = "") -> String {
        "\(alias)state NOT IN (\(quoted(CheckInState.all { !$0.isLive }.map(\.rawValue))))"
    }

    /// It still holds its photo (`CheckInState.holdsItsPhoto`).
    public static func holdsItsPhoto(_ alias: String = "") -> String {
        states(alias, CheckInState.all(\.holdsItsPhoto))
    }

    /// It is in `state`.
    public static func isIn(_ state: CheckInState, _ alias: String = "") -> String { states(alias, [state]) }

    private static func states(_ alias: String, _ states: [CheckInState]) -> String {
        "\(alias)state IN (\(quoted(states.map(\.rawValue))))"
    }

    private static func quoted(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }
}
