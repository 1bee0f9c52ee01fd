import VSHAuthoring
import VSHCore
import VSHEngine
import VSHHost
import VSHPostGIS
import VSHSpatiaLite

/// The command line's words for library errors: the libraries say what is wrong;
/// the CLI adds what to type to fix it (a command, a flag), which only it knows.
public enum ErrorWords {
    /// The one-line message for `error`.
    public static func message(_ error: any Error) -> String {
        switch error {
        case LeagueError.unknownPlayer(let name):
            return "no player \"\(name)\" (add one with: vsh player add NAME)"
        case LeagueError.missingReason:
            return "give a reason (--reason TEXT)"
        case AuthoringError.missingHuntID(let file):
            return "\(file): give the hunt an id with --id (lower-case letters, digits, hyphens)"
        case AuthoringError.missingHuntName(let file):
            return "\(file): give the hunt a name with --name"
        case AuthoringError.notAHuntFile(let file):
            return "\(file): this FeatureCollection is not a hunt file; give --id and --name"
        case let error as PostGISError where error.location == PostGISError.databaseURL:
            return "--db: \(error.message)"
        case let error as ReviewRecheckError:
            return "\(error) (approve with --override to accept it anyway)"
        case HuntSourceError.folderNotFound(let path):
            return "\(path): hunts folder not found (set --hunts or VSH_HUNTS)"
        default:
            return String(describing: error)
        }
    }
}
