import VSHCore
import VSHSQL

extension CheckInStateSQL {
    /// The state a row of `checkin_state` in the database at `path` names (an unknown name is a
    /// damaged database).
    static func state(_ name: String, path: String) throws -> CheckInState {
        guard let state = CheckInState(rawValue: name) else {
            throw StoreError(code: 0, message: "unknown check-in state \"\(name)\"", path: path)
        }
        return state
    }
}
