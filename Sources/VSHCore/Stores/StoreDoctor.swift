/// What a health check found in a store.
public struct StoreHealth: Sendable {
    /// The database's own integrity check: `["ok"]` when sound.
    public var integrity: [String]
    /// Rows that break a foreign key (0 when sound).
    public var foreignKeyViolations: Int
    /// Players registered.
    public var players: Int
    /// Check-ins recorded.
    public var checkIns: Int
    /// Stops synced.
    public var stops: Int
    /// Check-ins whose photo is missing from the photo store.
    public var missingPhotos: Int
    /// Check-ins whose archived photo is not the photo any more (its bytes do not hash to its key).
    public var damagedPhotos: Int = 0
    /// Players whose stored points differ from a rescore from their check-ins.
    public var playersWithWrongTotals: Int
    /// Teams whose running totals differ from a rescore from their members' check-ins.
    public var teamsWithWrongTotals: Int = 0

    /// A health report from its parts.
    public init(
        integrity: [String], foreignKeyViolations: Int, players: Int, checkIns: Int, stops: Int,
        missingPhotos: Int,
        playersWithWrongTotals: Int
    ) {
        self.integrity = integrity
        self.foreignKeyViolations = foreignKeyViolations
        self.players = players
        self.checkIns = checkIns
        self.stops = stops
        self.missingPhotos = missingPhotos
        self.playersWithWrongTotals = playersWithWrongTotals
    }

    /// True when every check passed.
    public var isHealthy: Bool {
        integrity == ["ok"] && foreignKeyViolations == 0 && missingPhotos == 0 && damagedPhotos == 0
            && playersWithWrongTotals == 0 && teamsWithWrongTotals == 0
    }
}

/// `vsh doctor`: checks a store without changing it.
public protocol StoreDoctor: Sendable {
    /// Checks the database, that every recorded photo is in `photos`, and the score
    /// totals against a rescore (which is rolled back).
    func health(photos: any PhotoStore) async throws -> StoreHealth

    /// Where the league is kept, for messages: a file path, or a URL without its password.
    var location: String { get }
}

/// Everything a league keeps: the store protocols one backend implements together.
public typealias LeagueStore = HuntStore & PlayerStore & AccountStore & CheckInStore & ReviewStore
    & AnnouncementStore & TeamStore & AdjustmentStore & FeedStore & PositionStore
    & ScoreStore
    & StoreDoctor
