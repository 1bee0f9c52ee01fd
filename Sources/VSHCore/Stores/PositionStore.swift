public import Foundation

/// A player's last position in a hunt that shares positions with its organisers
/// (`share_positions`): one a player a hunt, replaced by the next.
public struct PlayerPosition: Sendable, Equatable {
    /// The player.
    public var playerID: PlayerID
    /// Their name (filled in by `positions(huntID:since:)`; ignored when recording).
    public var player: String
    /// The hunt.
    public var huntID: String
    /// Where they were: latitude (WGS84 degrees).
    public var lat: Double
    /// Longitude (WGS84 degrees).
    public var lon: Double
    /// The phone's stated accuracy (metres).
    public var accuracyMeters: Double
    /// When the server received it.
    public var at: Date

    /// A position from its parts.
    public init(
        playerID: PlayerID, player: String = "", huntID: String, lat: Double, lon: Double,
        accuracyMeters: Double,
        at: Date
    ) {
        self.playerID = playerID
        self.player = player
        self.huntID = huntID
        self.lat = lat
        self.lon = lon
        self.accuracyMeters = accuracyMeters
        self.at = at
    }
}

/// Players' last positions, kept for the organisers' map while a hunt runs. Nothing else reads
/// them; they are not copied by `vsh db copy`, and erasing an account or forgetting a hunt's
/// positions deletes them.
public protocol PositionStore: Sendable {
    /// Records a player's position in a hunt, replacing the one before.
    func recordPosition(_ position: PlayerPosition) async throws
    /// The hunt's positions received at or after `since`, newest first, with the players' names;
    /// banned and erased players' positions are left out.
    func positions(huntID: String, since: Date) async throws -> [PlayerPosition]
    /// Deletes the hunt's positions (the hunt ended or no longer shares them); returns how many.
    @discardableResult
    func forgetPositions(huntID: String) async throws -> Int
}
