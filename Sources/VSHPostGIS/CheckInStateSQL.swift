import VSHCore

/// `CheckInState`'s conditions in this adapter's SQL, written once and built from the Swift
/// type's own cases: each is a predicate over a row of `checkins` (`canCount`) or of the
/// `checkin_state` view (the others), whose column names may take a table alias (`"c."`).
enum CheckInStateSQL {
    /// Verdicts a check-in must have had to count or be live now; the live index covers them.
    static func canCount(_ alias: String = "") -> String {
        "\(alias)verdict IN (\(quoted(CheckInState.verdictsThatCanCount.map(\.rawValue))))"
    }

    /// It counts now (`CheckInState.counts`).
    static func counts(_ alias: String = "") -> String { states(alias, CheckInState.all(\.counts)) }

    /// It stands in the player's history (`CheckInState.isLive`).
    static func isLive(_ alias: String = "") -> String { states(alias, CheckInState.all(\.isLive)) }

    /// It still holds its photo (`CheckInState.holdsItsPhoto`).
    static func holdsItsPhoto(_ alias: String = "") -> String {
        states(alias, CheckInState.all(\.holdsItsPhoto))
    }

    /// It is in `state`.
    static func isIn(_ state: CheckInState, _ alias: String = "") -> String { states(alias, [state]) }

    /// The state a row of the view names.
    static func state(_ name: String) throws -> CheckInState {
        guard let state = CheckInState(rawValue: name) else {
            throw PostGISError(
                kind: .data, message: "unknown check-in state \"\(name)\"", location: "checkin_state")
        }
        return state
    }

    private static func states(_ alias: String, _ states: [CheckInState]) -> String {
        "\(alias)state IN (\(quoted(states.map(\.rawValue))))"
    }

    private static func quoted(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }
}
