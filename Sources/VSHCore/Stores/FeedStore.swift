public import Foundation

/// One check-in as the moderators' live feed shows it.
public struct FeedItem: Sendable, Equatable {
    /// The check-in.
    public var id: Int64
    /// Whose.
    public var playerID: PlayerID
    /// Their name.
    public var player: String
    /// The team it counted for, if any.
    public var team: Int64?
    /// The hunt it was decided for, if any.
    public var huntID: String?
    /// The stop, if any.
    public var stopID: String?
    /// The stop's name, if any.
    public var stopName: String?
    /// When vsh received it.
    public var receivedAt: Date
    /// Its state now.
    public var state: CheckInState
    /// Whether it came with a photo.
    public var hasPhoto: Bool
    /// Whether a moderator featured its photo (the projector shows it).
    public var featured: Bool

    /// An item from its parts.
    public init(
        id: Int64, playerID: PlayerID, player: String, team: Int64?, huntID: String?, stopID: String?,
        stopName: String?, receivedAt: Date, state: CheckInState, hasPhoto: Bool, featured: Bool
    ) {
        self.id = id
        self.playerID = playerID
        self.player = player
        self.team = team
        self.huntID = huntID
        self.stopID = stopID
        self.stopName = stopName
        self.receivedAt = receivedAt
        self.state = state
        self.hasPhoto = hasPhoto
        self.featured = featured
    }
}

/// The moderators' live feed and the photos they feature.
public protocol FeedStore: Sendable {
    /// The latest check-ins, newest first: of one hunt, or of the league; only those before
    /// check-in `before` when given (the next page).
    func feed(huntID: String?, before: Int64?, limit: Int) async throws -> [FeedItem]
    /// One check-in as the feed shows it, or nil.
    func feedItem(_ id: Int64) async throws -> FeedItem?
    /// Features a check-in's photo or stops featuring it; false when there is no such check-in.
    func setFeatured(_ id: Int64, _ featured: Bool, by: String, at now: Date) async throws -> Bool
    /// A hunt's featured photos that still count (accepted, with a photo), newest featured first.
    func featured(huntID: String, limit: Int) async throws -> [FeedItem]
}
