public import Foundation

/// A themed hunt: metadata from a hunt file's `hunt` member and its stops.
public struct Hunt: Hashable, Sendable {
    /// How hard a hunt is, as the organiser rates it.
    public enum Difficulty: String, CaseIterable, Sendable { case easy, medium, hard, expert }

    /// Slug, equal to the file name without `.geojson`.
    public var id: String
    /// The hunt's name as players see it.
    public var name: String
    /// What the hunt is about.
    public var description: String
    /// How hard it is.
    public var difficulty: Difficulty
    /// Awarded once, when every stop is accepted.
    public var bonusPoints: Int
    /// Stops must be taken in file order.
    public var ordered: Bool
    /// IANA time zone that makes EXIF local capture times absolute.
    public var timeZone: String
    /// When check-ins start to count (nil: no start).
    public var startsAt: Date?
    /// When check-ins stop counting (nil: no end).
    public var endsAt: Date?
    /// A fix less accurate than this (metres, radius) goes to review.
    public var maxAccuracyMeters: Double
    /// A photo older than this at submission time is refused (seconds).
    public var maxPhotoAgeSeconds: Double
    /// A device fix older than this when it is received (seconds) goes to review: a phone that was
    /// offline sends it late, and a moderator, not the rules, decides whether that is a visit.
    public var maxFixAgeSeconds: Double = Hunt.defaultMaxFixAgeSeconds
    /// The default of `maxFixAgeSeconds`: two minutes.
    public static let defaultMaxFixAgeSeconds: Double = 120
    /// How long after `endsAt` a check-in may still be received (seconds; default 0): a grace for
    /// phones that were offline at the end. Past it, `hunt_window` fails whatever the capture time.
    public var lateGraceSeconds: Double = 0
    /// What a check-in must show: any fix (`any`, the default), or a photo (`photo`): a device
    /// fix alone is then refused.
    public var proof: Proof = .any
    /// What every stop of the hunt asks for besides its own `proof` (the hunt's `proof` written as a
    /// list, such as `["photo", "code"]`: its `photo` is `proof`, the rest is here).
    public var stopsProof: Set<StopProof> = []
    /// The fastest a player is expected to travel between two check-ins (km/h, after both fixes'
    /// accuracies): faster goes to review. On foot by default; an organiser whose players may take
    /// a taxi or the monorail says so in the hunt file (`max_speed_kmh`). Above
    /// `Hunt.impossibleSpeedKmh` a check-in is rejected whatever the hunt says.
    public var maxSpeedKmh: Double = Hunt.defaultMaxSpeedKmh
    /// The default of `maxSpeedKmh`: 12 km/h, a player on foot who runs a little.
    public static let defaultMaxSpeedKmh: Double = 12
    /// Faster than this (km/h) between two check-ins is rejected in every hunt: no taxi on the
    /// Strip goes so fast, and a plane does not stop at a sign.
    public static let impossibleSpeedKmh: Double = 200
    /// The least time (seconds) from a player's first accepted check-in in the hunt to the check-in
    /// that completes it; finishing sooner goes to review (nil: no minimum).
    public var minDurationSeconds: Double?
    /// The hunt's name and description in other languages, by language tag (`translations`).
    public var translations: [String: Translation] = [:]
    /// Who sees the hunt: everyone (`public`, the default), or the players who joined it with its
    /// join code (`private`), besides its organisers and moderators.
    public var visibility: Visibility = .public
    /// The code players join a private hunt with (`join_code`): a secret, never sent to players.
    public var joinCode: String?
    /// Whether players play alone, in teams, or either (`play`).
    public var play: Play = .solo
    /// The most players a team may have (`max_team_size`; nil: no limit).
    public var maxTeamSize: Int?
    /// Whether the organisers see players' last positions on their map while the hunt runs
    /// (`share_positions`; players are told on the hunt page).
    public var sharePositions = false

    /// How a hunt is played.
    public enum Play: String, Sendable, Hashable, CaseIterable {
        /// Each player for themselves (the default).
        case solo
        /// In teams: a check-in counts only for a player on a team, and a stop, the completion
        /// bonus and a photo count once per team.
        case teams
        /// Alone or in a team, as each player chooses.
        case either
    }

    /// Who sees a hunt.
    public enum Visibility: String, Sendable, Hashable, CaseIterable {
        /// Everyone.
        case `public`
        /// The players who joined it with its code.
        case `private`
    }

    /// What a hunt asks a check-in to show.
    public enum Proof: String, Sendable, Hashable, CaseIterable {
        /// A photo with its EXIF GPS, a device fix, or both.
        case any
        /// A photo (alone, or with the device's fix).
        case photo
    }
    /// How far outside a stop (metres) a fix may lie when its accuracy circle
    /// reaches the stop; the cap on "close enough".
    public var toleranceMeters: Double
    /// An image file for the hunt, relative to the hunts folder.
    public var image: String?
    /// The stops, in the file's order.
    public var stops: [Stop]

    /// A hunt from its fields (the defaults are the hunt file's).
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

    /// The time zone when a hunt names none.
    public static let defaultTimeZone = "UTC"

    /// Points for every stop plus the completion bonus.
    public var totalPoints: Int { stops.reduce(bonusPoints) { $0 + $1.points } }
}

/// A place to visit: a geofence with a name and points.
public struct Stop: Hashable, Sendable {
    /// Slug, unique across all hunts.
    public var id: String
    /// The hunt the stop belongs to.
    public var huntID: String
    /// The stop's name as players see it.
    public var name: String
    /// What the stop is, where to look.
    public var description: String
    /// Points for a first visit.
    public var points: Int
    /// An image file for the stop, relative to the hunts folder.
    public var image: String?
    /// The area that counts as being there.
    public var geofence: Geofence
    /// Shown first in the app's hunt feed (the organiser's choice: a sight not to miss, or a
    /// sponsor's place, then labelled with `sponsor`).
    public var featured: Bool
    /// Who sponsors the stop, shown as an advertisement wherever the stop is shown; nil: nobody.
    public var sponsor: String?
    /// What a check-in here must bring besides what the hunt asks (`proof` in the stop's
    /// properties, a list): a prize stop asks for a photo in a hunt that takes device fixes.
    public var proof: Set<StopProof>
    /// The code printed at the stop (`code`): a secret, never sent to players. A check-in that
    /// brings it is at the stop even where GPS cannot say so (docs/anti-cheat.md).
    public var code: Secret?
    /// The code a screen at the stop shows, changing every 30 s (`rotating_code`).
    public var rotatingCode: RotatingCode?
    /// The question asked here (`question`, `answers`): its answers are secrets, never sent to players.
    public var question: StopQuestion?

    /// Whether a code (printed or rotating) proves presence here.
    public var hasCode: Bool { code != nil || rotatingCode != nil }

    /// The stop's name and description in other languages, by language tag.
    public var translations: [String: Translation] = [:]

    /// The longest sponsor line, in characters.
    public static let maxSponsorLength = 120

    /// A stop from its fields.
    public init(
        id: String, huntID: String, name: String, description: String = "", points: Int,
        image: String? = nil, geofence: Geofence, featured: Bool = false, sponsor: String? = nil,
        proof: Set<StopProof> = []
    ) {
        self.proof = proof
        self.featured = featured
        self.sponsor = sponsor
        self.id = id
        self.huntID = huntID
        self.name = name
        self.description = description
        self.points = points
        self.image = image
        self.geofence = geofence
    }
}

extension Hunt {
    /// The hunt's `proof` as databases keep it: `any`, `photo`, or a comma-separated list
    /// (`photo,code`) when every stop asks for more.
    public var proofText: String {
        if stopsProof.isEmpty { return proof.rawValue }
        var all = stopsProof
        if proof == .photo { all.insert(.photo) }
        return StopProof.text(all)
    }

    /// Sets `proof` and `stopsProof` from `proofText`'s form (an unknown text is `any`).
    public mutating func setProof(text: String) {
        if let plain = Proof(rawValue: text) {
            proof = plain
            stopsProof = []
        } else if var list = StopProof.parse(text) {
            proof = list.remove(.photo) == nil ? .any : .photo
            stopsProof = list
        } else {
            proof = .any
            stopsProof = []
        }
    }
}

extension Stop {
    /// Whether a check-in here must bring `kind`: the stop's own `proof` or its hunt's.
    public func requires(_ kind: StopProof, in hunt: Hunt?) -> Bool {
        if proof.contains(kind) { return true }
        guard let hunt else { return false }
        return kind == .photo ? hunt.proof == .photo : hunt.stopsProof.contains(kind)
    }
}

/// One thing a check-in at a stop must bring (a stop's `proof` list).
public enum StopProof: String, CaseIterable, Sendable, Hashable {
    /// A photo: a device fix alone is refused.
    case photo
    /// The phone's own position (a device fix): a photo placed by its EXIF GPS alone is refused.
    case fix
    /// The stop's code, printed or rotating: a check-in without it is refused.
    case code
    /// The right answer to the stop's question: a check-in without it is refused.
    case answer

    /// The list as hunt files and databases write it: in this type's order, comma-separated.
    public static func text(_ proof: Set<StopProof>) -> String {
        allCases.filter(proof.contains).map(\.rawValue).joined(separator: ",")
    }

    /// The set a comma-separated list names; nil when an entry is unknown.
    public static func parse(_ text: String) -> Set<StopProof>? {
        var found: Set<StopProof> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let value = StopProof(rawValue: part.trimmingCharacters(in: .whitespaces)) else {
                return nil
            }
            found.insert(value)
        }
        return found
    }
}

/// Identifiers of hunts and stops: lower-case ASCII letters, digits and
/// hyphens, starting with a letter or digit, at most 64 characters. They are
/// file names and URL parts, so nothing else is allowed.
public enum Slug {
    /// The longest id, in characters.
    public static let maxLength = 64

    /// Whether `text` is a valid id: lower-case letters, digits and hyphens, not at the ends, 1 to `maxLength` characters.
    public static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maxLength, text.first != "-" else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
    }
}

/// Where a hunt stands at a moment: before `starts_at`, between, or from `ends_at` on.
public enum HuntState: String, Sendable {
    case upcoming, open, closed
}

extension Hunt {
    /// The hunt's state at `now`: check-ins count only while it is open.
    public func state(at now: Date) -> HuntState {
        if let startsAt, now < startsAt { return .upcoming }
        if let endsAt, now >= endsAt { return .closed }
        return .open
    }
}
