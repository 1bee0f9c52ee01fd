public import Foundation

/// What a player may do beyond playing.
public enum Role: String, Sendable, CaseIterable {
    /// Plays: checks in, sees boards and profiles.
    case player
    /// Also moderates: the review queue, approvals and rejections.
    case moderator
    /// Also organises: hunts, their drafts and publishing, and everything a moderator may.
    case organiser

    /// The review queue, approvals, rejections and revocations, and every player's photos.
    public var mayModerate: Bool { self == .moderator || self == .organiser }
}

/// A player's sign-in credentials as a store keeps them: never the password, only its hash.
public struct Credentials: Sendable {
    /// Who.
    public var player: PlayerRecord
    /// The password's bcrypt hash, or nil for a player who has none (made with `vsh player add`).
    public var passwordHash: String?
    /// What the player may do.
    public var role: Role

    /// Credentials from their parts.
    public init(player: PlayerRecord, passwordHash: String?, role: Role) {
        self.player = player
        self.passwordHash = passwordHash
        self.role = role
    }
}

/// A signed-in session, found by its token's hash.
public struct Session: Sendable {
    /// Who signed in.
    public var player: PlayerRecord
    /// Their role now (a role granted after sign-in applies at once).
    public var role: Role
    /// When the session stops working.
    public var expiresAt: Date

    /// A session from its parts.
    public init(player: PlayerRecord, role: Role, expiresAt: Date) {
        self.player = player
        self.role = role
        self.expiresAt = expiresAt
    }
}

/// Accounts: passwords (as hashes), roles and sessions (as token hashes). Nothing a store keeps
/// here lets anyone sign in: a leaked database holds bcrypt hashes and SHA-256 hashes of tokens.
public protocol AccountStore: Sendable {
    /// Registers a player with a password hash in one transaction (as `PlayerStore.addPlayer` checks
    /// the name and address): the account exists whole or not at all.
    @discardableResult
    func addPlayer(name: String, email: String?, passwordHash: String, at now: Date) async throws
        -> PlayerRecord

    /// The player's credentials, found by name ignoring case, or nil for no such player.
    func credentials(named name: String) async throws -> Credentials?

    /// Sets (or replaces) a player's password hash; every session of theirs ends.
    /// - Throws: `LeagueError.unknownPlayerID`.
    func setPasswordHash(_ hash: String, player: PlayerID) async throws

    /// Sets a player's role.
    /// - Throws: `LeagueError.unknownPlayerID`.
    func setRole(_ role: Role, player: PlayerID) async throws

    /// Bans a player (or lifts the ban): a banned player's sessions end at once, they cannot sign in
    /// (a sign-in answers as for a wrong password), and they are off the boards; their check-ins and
    /// points stay, and count again when the ban is lifted.
    /// - Throws: `LeagueError.unknownPlayerID`.
    func setBanned(_ banned: Bool, player: PlayerID) async throws

    /// Renames a player, checked as at registration (`PlayerName`, unique, not a look-alike of
    /// another player's name). - Throws: `PlayerNameError`, `LeagueError.nameTaken`, `.nameLooksLike`.
    func rename(player: PlayerID, to name: String) async throws -> PlayerRecord

    /// Erases an account in one transaction: its name becomes "Erased player #ID", its e-mail
    /// address, password, picture, sessions, reset links, retry keys, team and hunt memberships and
    /// featured photos go; its check-ins and what they earned stay (the boards stay as they were,
    /// under the new name). Returns the photo-store keys only this account held (its check-ins'
    /// photos and its picture), for the caller to delete once this is committed.
    func erase(player: PlayerID) async throws -> [String]

    /// Records a new session under the hash of its token.
    func createSession(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) async throws

    /// The session whose token has this hash, if it has not expired at `now`. Its last use becomes
    /// `now` (a store may skip the write while the last stamp is recent: it is for housekeeping).
    func session(tokenHash: String, at now: Date) async throws -> Session?

    /// Ends the session whose token has this hash (a no-op when there is none).
    func deleteSession(tokenHash: String) async throws

    /// Changes a player's e-mail address (checked as `addPlayer` checks it).
    /// - Throws: `LeagueError.invalidEmail`, `LeagueError.unknownPlayerID`.
    func setEmail(_ email: String, player: PlayerID) async throws

    /// Sets the photo-store key of a player's avatar.
    /// - Throws: `LeagueError.unknownPlayerID`.
    func setAvatar(_ key: String, player: PlayerID) async throws

    /// The photo-store key of a player's avatar, or nil for none.
    func avatar(player: PlayerID) async throws -> String?

    /// The avatars' keys of these players, in one read: players without one are absent.
    func avatars(players: [PlayerID]) async throws -> [PlayerID: String]

    /// The players who gave this e-mail address, compared ignoring case.
    func players(withEmail email: String) async throws -> [PlayerRecord]

    /// Records a password-reset token under its hash.
    func createPasswordReset(tokenHash: String, player: PlayerID, expiresAt: Date, at now: Date) async throws

    /// Uses a password-reset token, in one transaction: when it exists, is unused and has not
    /// expired at `now`, the player's password hash becomes `passwordHash`, every session of theirs
    /// ends and the token (and any other open token of theirs) is used up.
    /// - Returns: the player, or nil when the token is unknown, used or expired (nothing changes then).
    func resetPassword(tokenHash: String, passwordHash: String, at now: Date) async throws -> PlayerID?
}

/// An erased account (`AccountStore.erase`).
public enum ErasedAccount {
    /// The name an erased account goes by: "Erased player #12" (no player can register a `#`).
    public static func name(_ player: PlayerID) -> String { "Erased player #\(player.rawValue)" }
}
