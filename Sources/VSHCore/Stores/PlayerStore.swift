public import Foundation

/// Who a player is: the stable id and the name people see.
public struct PlayerRecord: Hashable, Sendable {
    /// The player's stable id.
    public var id: PlayerID
    /// The display name.
    public var name: String
    /// The e-mail address, if given.
    public var email: String?
    /// When the player registered.
    public var createdAt: Date

    /// A record from its parts.
    public init(id: PlayerID, name: String, email: String?, createdAt: Date) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}

extension PlayerRecord {
    /// An e-mail address as players are registered with: 254 characters at most, an `@`, no spaces.
    /// - Throws: `LeagueError.invalidEmail`.
    public static func validateEmail(_ email: String) throws(LeagueError) {
        guard email.count <= 254, email.contains("@"),
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw .invalidEmail(email) }
    }
}

/// A registered player with derived totals.
public struct PlayerSummary: Sendable {
    /// The player's stable id.
    public var id: PlayerID
    /// The display name.
    public var name: String
    /// The e-mail address, if given.
    public var email: String?
    /// When the player registered.
    public var createdAt: Date
    /// Points earned: first visits to stops, hunt bonuses and badges (from accepted check-ins).
    public var points: Int
    /// Every check-in the player submitted.
    public var checkIns: Int
    /// Those whose state is accepted.
    public var acceptedCheckIns: Int

    /// A summary from its parts.
    public init(
        id: PlayerID, name: String, email: String?, createdAt: Date, points: Int, checkIns: Int,
        acceptedCheckIns: Int
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
    /// - Throws: `PlayerNameError` for an invalid name, `LeagueError.nameTaken`, `LeagueError.invalidEmail`.
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
