public import Foundation

/// Who a player is: the stable id and the name people see.
public struct PlayerRecord: Hashable, Sendable {
    public var id: PlayerID
    public var name: String
    public var email: String?
    public var createdAt: Date

    public init(id: PlayerID, name: String, email: String?, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}

/// A registered player with derived totals.
public struct PlayerSummary: Sendable {
    public var id: PlayerID
    public var name: String
    public var email: String?
    public var createdAt: Date
    /// Points earned: first visits to stops, hunt bonuses and badges (from accepted check-ins).
    public var points: Int
    public var checkIns: Int
    public var acceptedCheckIns: Int

    public init(
        id: PlayerID, name: String, email: String?, createdAt: Date, points: Int, checkIns: Int, acceptedCheckIns: Int
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
        self.points = points
        self.checkIns = checkIns
        self.acceptedCheckIns = acceptedCheckIns
    }
}

/// Players: registered once, looked up by name at the edge, by id everywhere else.
public protocol PlayerStore: Sendable {
    /// Registers a player. Names are validated (`PlayerName`) and unique by `PlayerName.key`.
    /// - Throws: `InputError` for an invalid name, `LeagueError.nameTaken`, `LeagueError.invalidEmail`.
    @discardableResult
    func addPlayer(name: String, email: String?, at now: Date) async throws -> PlayerRecord

    /// The player going by this name (ignoring case), or nil.
    func player(named name: String) async throws -> PlayerRecord?

    /// The player with this id, or nil.
    func player(id: PlayerID) async throws -> PlayerRecord?

    /// Every player with totals, by name.
    func players() async throws -> [PlayerSummary]
}

extension PlayerStore {
    /// The player going by this name, or `LeagueError.unknownPlayer`: the edge's one look-up.
    public func requirePlayer(named name: String) async throws -> PlayerRecord {
        guard let player = try await player(named: name) else { throw LeagueError.unknownPlayer(name: name) }
        return player
    }
}
