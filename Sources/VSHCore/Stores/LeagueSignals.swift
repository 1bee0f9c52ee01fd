/// What one instance of `vsh serve` tells the others that share its league, so that a page hears
/// of a change at once whichever instance it listens to.
public enum LeagueSignal: Sendable, Hashable {
    /// The league changed (a write): pages read what they show again.
    case change
    /// An organiser's announcement (its id).
    case announcement(Int64)
    /// A check-in was recorded (its id).
    case checkIn(Int64)
}

/// A channel between the instances sharing one database (PostgreSQL's LISTEN and NOTIFY).
public protocol LeagueSignals: Sendable {
    /// Tells the other instances (this one is not told).
    func send(_ signals: [LeagueSignal]) async throws
    /// Until cancelled: calls `receive` with what the other instances send, in order. Throws when
    /// the channel fails (the caller listens again).
    func listen(_ receive: @escaping @Sendable ([LeagueSignal]) -> Void) async throws
}

extension LeagueSignal {
    /// The signals as words (`c`, `a12`, `k34`), for a notification's payload.
    public static func words(_ signals: [LeagueSignal]) -> [String] {
        signals.map { signal in
            switch signal {
            case .change: return "c"
            case .announcement(let id): return "a\(id)"
            case .checkIn(let id): return "k\(id)"
            }
        }
    }

    /// The signals of words made by `words`; a word that is not one is skipped.
    public static func parse(_ words: some Sequence<Substring>) -> [LeagueSignal] {
        words.compactMap { word in
            switch word.first {
            case "c"?: return word.count == 1 ? .change : nil
            case "a"?: return Int64(word.dropFirst()).map(LeagueSignal.announcement)
            case "k"?: return Int64(word.dropFirst()).map(LeagueSignal.checkIn)
            default: return nil
            }
        }
    }
}
