/// Something a caller named that the league does not have, or a request the
/// league's state does not allow. Bad input (exit 65 for the CLI, 404/409/422
/// for the server): the message names the culprit in the library's words; the
/// CLI and the server map the cases to their own words and statuses.
public enum LeagueError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// No player goes by this name.
    case unknownPlayer(name: String)
    /// No player has this id.
    case unknownPlayerID(PlayerID)
    /// No hunt has this id; `known` lists the ids there are, in catalog order.
    case unknownHunt(id: String, known: [String])
    /// No check-in has this id.
    case unknownCheckIn(id: Int64)
    /// A moderator's decision needs the check-in in another state.
    case checkInState(id: Int64, state: CheckInState, required: CheckInState)
    /// Another player already goes by this name (ignoring case).
    case nameTaken(name: String)
    /// Another player's name looks like this one (`existing`, a confusable: "AIice" for "Alice").
    case nameLooksLike(name: String, existing: String)
    /// The hunt has a team of this name already (ignoring case and accents).
    case teamNameTaken(name: String)
    /// Not an e-mail address.
    case invalidEmail(String)
    /// A moderator's decision needs a reason.
    case missingReason
    /// A moderator's reason is longer than `limit` characters.
    case reasonTooLong(limit: Int)
    /// A rejected check-in was already overturned by check-in `by`.
    case overturned(id: Int64, by: Int64)
    /// Overturning a rejection needs the moderator's own reason.
    case overturnNeedsReason(id: Int64)

    /// The message in the library's words.
    public var description: String {
        switch self {
        case .unknownPlayer(let name): return "no player \"\(name)\""
        case .unknownPlayerID(let id): return "no player #\(id)"
        case .unknownHunt(let id, let known):
            return "no hunt \"\(id)\"" + (known.isEmpty ? "" : " (hunts: \(known.joined(separator: ", ")))")
        case .unknownCheckIn(let id): return "no check-in #\(id)"
        case .checkInState(let id, let state, let required):
            return "check-in #\(id) is \(state), not \(required)"
        case .nameTaken(let name): return "a player called \"\(name)\" already exists"
        case .teamNameTaken(let name): return "the hunt has a team called \"\(name)\" already"
        case .nameLooksLike(let name, let existing):
            return
                "\"\(name)\" looks like \"\(existing)\", a player who already exists: choose a name nobody could mistake"
        case .invalidEmail(let text):
            let shown = text.unicodeScalars.prefix(80).map {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
                    || $0.properties.generalCategory == .format
                    ? "\\u{\(String($0.value, radix: 16))}" : String($0)
            }.joined()
            return "\"email\": \"\(shown)\" is not an e-mail address (name@example.org)"
        case .missingReason: return "a moderator's decision needs a reason"
        case .reasonTooLong(let limit): return "the reason is over \(limit) characters"
        case .overturned(let id, let by): return "check-in #\(id) was already overturned by check-in #\(by)"
        case .overturnNeedsReason(let id):
            return "check-in #\(id) was rejected: overturning it needs a reason (kept in the audit trail)"
        }
    }

    /// Invalid data for every case but a missing reason (an invalid request).
    public var errorKind: ErrorKind {
        switch self {
        case .missingReason, .overturnNeedsReason: return .invalidRequest
        default: return .invalidData
        }
    }
}

/// A submission that cannot be judged at all: refused before any rule runs.
public enum SubmissionError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// A device fix's accuracy is not a finite distance of 0 m or more.
    case invalidAccuracy
    /// A photo without a usable GPS position and no device fix: nothing could place the player,
    /// so the check-in could never be accepted (the service refuses it rather than burn the photo).
    case noPosition(note: String)
    /// The check-in names a stop (`stop`) that no hunt the player sees has.
    case unknownStop(String)
    /// The check-in brings a code that is no stop's printed code and names no stop.
    case codeNamesNoStop
    /// A check-in with a code and nothing else, for a stop whose code cannot place the player (it
    /// has none, or asks for the phone's position too).
    case codeCannotPlace(stop: String)

    /// The message.
    public var description: String {
        switch self {
        case .invalidAccuracy: return "accuracy must be a distance in metres, 0 or more"
        case .unknownStop(let id): return "stop: there is no stop \"\(id.prefix(64))\""
        case .codeCannotPlace(let stop):
            return
                "no position: \(stop) takes no code in place of your phone's position; allow this site to use your location and try again"
        case .codeNamesNoStop:
            return
                "code: it is no stop's printed code; check it, or open the stop's page and type it there (a screen's code needs the stop)"
        case .noPosition(let note):
            return
                "no position: the photo has no usable GPS position (\(note)) and no device position (lat, lon, fix_time, accuracy_m) came with it; allow this site to use your location and try again"
        }
    }

    /// An invalid request for a bad accuracy; invalid data for input that cannot be judged.
    public var errorKind: ErrorKind {
        switch self {
        case .invalidAccuracy, .unknownStop, .codeNamesNoStop, .codeCannotPlace: return .invalidRequest
        case .noPosition: return .invalidData
        }
    }
}
