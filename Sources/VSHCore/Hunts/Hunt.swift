public import Foundation

/// A themed hunt: metadata from a hunt file's `hunt` member and its stops.
public struct Hunt: Hashable, Sendable {
    public enum Difficulty: String, CaseIterable, Sendable { case easy, medium, hard, expert }

    /// Slug, equal to the file name without `.geojson`.
    public var id: String
    public var name: String
    public var description: String
    public var difficulty: Difficulty
    /// Awarded once, when every stop is accepted.
    public var bonusPoints: Int
    /// Stops must be taken in file order.
    public var ordered: Bool
    /// IANA time zone that makes EXIF local capture times absolute.
    public var timeZone: String
    public var startsAt: Date?
    public var endsAt: Date?
    /// A fix less accurate than this (metres, radius) goes to review.
    public var maxAccuracyMeters: Double
    /// A photo older than this at submission time is refused (seconds).
    public var maxPhotoAgeSeconds: Double
    /// How far outside a stop (metres) a fix may lie when its accuracy circle
    /// reaches the stop; the cap on "close enough".
    public var toleranceMeters: Double
    public var image: String?
    public var stops: [Stop]

    public init(
        id: String, name: String, description: String = "", difficulty: Difficulty = .medium,
        bonusPoints: Int = 0, ordered: Bool = false, timeZone: String = Hunt.defaultTimeZone,
        startsAt: Date? = nil, endsAt: Date? = nil, maxAccuracyMeters: Double = 50,
        maxPhotoAgeSeconds: Double = 86_400, toleranceMeters: Double = 25, image: String? = nil,
        stops: [Stop] = []
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.difficulty = difficulty
        self.bonusPoints = bonusPoints
        self.ordered = ordered
        self.timeZone = timeZone
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.maxAccuracyMeters = maxAccuracyMeters
        self.maxPhotoAgeSeconds = maxPhotoAgeSeconds
        self.toleranceMeters = toleranceMeters
        self.image = image
        self.stops = stops
    }

    public static let defaultTimeZone = "UTC"

    /// Points for every stop plus the completion bonus.
    public var totalPoints: Int { stops.reduce(bonusPoints) { $0 + $1.points } }
}

/// A place to visit: a geofence with a name and points.
public struct Stop: Hashable, Sendable {
    /// Slug, unique across all hunts.
    public var id: String
    public var huntID: String
    public var name: String
    public var description: String
    public var points: Int
    public var image: String?
    public var geofence: Geofence

    public init(
        id: String, huntID: String, name: String, description: String = "", points: Int,
        image: String? = nil, geofence: Geofence
    ) {
        self.id = id
        self.huntID = huntID
        self.name = name
        self.description = description
        self.points = points
        self.image = image
        self.geofence = geofence
    }
}

/// Identifiers of hunts and stops: lower-case ASCII letters, digits and
/// hyphens, starting with a letter or digit, at most 64 characters. They are
/// file names and URL parts, so nothing else is allowed.
public enum Slug {
    public static let maxLength = 64

    public static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maxLength, text.first != "-" else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
    }
}
