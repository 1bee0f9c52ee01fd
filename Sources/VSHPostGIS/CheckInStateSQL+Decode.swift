import VSHCore
import VSHSQL

extension CheckInStateSQL {
    /// The state a row of `checkin_state` names (an unknown name is a damaged database).
    static func state(_ name: String) throws -> CheckInState {
        guard let state = CheckInState(rawValue: name) else {
            throw PostGISError(
                kind: .data, message: "unknown check-in state \"\(name)\"", location: "checkin_state")
        }
        return state
    }
}
