public import Foundation

/// A message from the organisers to the players: to everyone, or to one hunt's players.
public struct Announcement: Sendable, Equatable {
    /// Its number, in the order they were made.
    public var id: Int64
    /// The hunt it is for; nil: the whole league.
    public var huntID: String?
    /// What it says (plain text, at most `maxLength` characters).
    public var text: String
    /// Who sent it.
    public var by: String
    /// When.
    public var at: Date

    /// The longest announcement, in characters.
    public static let maxLength = 500

    /// An announcement from its parts.
    public init(id: Int64, huntID: String?, text: String, by: String, at: Date) {
        self.id = id
        self.huntID = huntID
        self.text = text
        self.by = by
        self.at = at
    }
}

/// Announcements, kept so that a page opened later lists them.
public protocol AnnouncementStore: Sendable {
    /// Records an announcement and returns it with its id.
    func announce(text: String, huntID: String?, by: String, at now: Date) async throws -> Announcement
    /// The latest announcements, newest first.
    func announcements(limit: Int) async throws -> [Announcement]
}
