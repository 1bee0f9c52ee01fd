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
    /// An e-mail address as players are registered with: one mailbox (`isEmailAddress`).
    /// - Throws: `LeagueError.invalidEmail`.
    public static func validateEmail(_ email: String) throws(LeagueError) {
        guard isEmailAddress(email) else { throw .invalidEmail(email) }
    }

    /// Whether the text is one mailbox as a mail header and a sign-up form take it: `local@domain`
    /// with one "@", a local part of at most 64 characters without spaces, controls, quotes or
    /// the header's separators (`<>()[]\,;:"`), and a domain of dot-separated labels of letters,
    /// digits and inner hyphens (the HTML standard's e-mail rule, letters of any script allowed).
    public static func isEmailAddress(_ email: String) -> Bool {
        guard email.utf8.count <= 254 else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
            (1...64).contains(local.count), !domain.isEmpty
        else { return false }
        let forbidden = Set("<>()[]\\,;:\"@`")
        guard
            local.unicodeScalars.allSatisfy({ scalar in
                !scalar.properties.isWhitespace && scalar.value > 0x20 && scalar.value != 0x7F
                    && !(0x80...0x9F).contains(scalar.value) && scalar.properties.generalCategory != .format
                    && !forbidden.contains(Character(scalar))
            }), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy {
                    $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0)
                }
        }
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
    /// Joins a player to a hunt (a private hunt's players are those who joined it with its code);
    /// joining twice is joining once.
    func joinHunt(player: PlayerID, huntID: String, at now: Date) async throws
    /// The hunts a player joined.
    func joinedHunts(player: PlayerID) async throws -> Set<String>
}

extension PlayerStore {
    /// The player going by this name, or `LeagueError.unknownPlayer`: the edge's one look-up.
    public func requirePlayer(named name: String) async throws -> PlayerRecord {
        guard let player = try await player(named: name) else { throw LeagueError.unknownPlayer(name: name) }
        return player
    }
}
