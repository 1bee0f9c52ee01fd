import Foundation

/// A hunt as a store holds it: the definition plus what the store derived.
public struct StoredHunt: Sendable {
    /// The hunt definition with its stops.
    public var hunt: Hunt
    /// The hunt file it was synced from.
    public var file: String
    /// Each stop's area on the WGS84 ellipsoid (Karney's `geod_polygonarea`), in m², by stop id.
    public var stopAreas: [String: Double]

    /// A stored hunt from its parts.
    public init(hunt: Hunt, file: String, stopAreas: [String: Double]) {
        self.hunt = hunt
        self.file = file
        self.stopAreas = stopAreas
    }
}

/// A stop as a lookup names it.
public struct StopReference: Hashable, Sendable {
    /// The hunt's id.
    public let huntID: String
    /// The stop's id.
    public let stopID: String
    /// The stop's name.
    public let name: String

    /// A reference from its parts.
    public init(huntID: String, stopID: String, name: String) {
        self.huntID = huntID
        self.stopID = stopID
        self.name = name
    }
}

/// The stop nearest to a point that no stop covers.
public struct NearestStop: Hashable, Sendable {
    /// The stop.
    public let stop: StopReference
    /// Geodesic distance on the WGS84 ellipsoid from the point to the stop's boundary, in metres.
    public let distanceMeters: Double

    /// A nearest stop from its parts.
    public init(stop: StopReference, distanceMeters: Double) {
        self.stop = stop
        self.distanceMeters = distanceMeters
    }
}

/// A stop that a straight segment between two fixes passes through.
public struct CrossedStop: Sendable {
    /// The stop.
    public let stop: StopReference
    /// Where along the segment (0 = first fix, 1 = second) the middle of the pass is.
    public let fraction: Double

    /// A crossing from its parts.
    public init(stop: StopReference, fraction: Double) {
        self.stop = stop
        self.fraction = fraction
    }
}

/// What a sync did.
public enum SyncOutcome: Equatable, Sendable {
    /// The files are what the store already holds.
    case unchanged
    /// The definitions were replaced: this many hunts and stops now.
    case updated(hunts: Int, stops: Int)
}

/// Hunts, their stops, and the spatial questions asked of them.
///
/// Positions are WGS84 degrees; "covers" is boundary-inclusive (`ST_Covers`; the README's
/// "Decisions where vsh parts from its libraries"):
/// a position on an edge or vertex is inside a stop, one in a hole is not.
public protocol HuntStore: Sendable {
    /// Every hunt with its stops, in catalog (file-name) order.
    func hunts() async throws -> [StoredHunt]

    /// One hunt with its stops, or nil when there is no hunt with that id.
    func hunt(id: String) async throws -> StoredHunt?

    /// The stops whose geofence covers a position, in hunt then stop order.
    func stops(covering position: Coordinate, inHunt huntID: String?) async throws -> [StopReference]

    /// The stop nearest to a position, with the geodesic distance in metres to its
    /// boundary on the WGS84 ellipsoid; nil when there are no stops.
    func nearestStop(to position: Coordinate, inHunt huntID: String?) async throws -> NearestStop?

    /// The stops a straight segment between two positions passes through
    /// (`ST_Intersects`), with where along the segment the pass is.
    func stops(crossedBy a: Coordinate, _ b: Coordinate, inHunt huntID: String?) async throws -> [CrossedStop]

    /// Many covering lookups in one go (a store answers them in one read): the answer of
    /// `stops(covering:inHunt:)` for each position, in order.
    func stops(covering positions: [Coordinate], inHunt huntID: String?) async throws -> [[StopReference]]

    /// Many segment lookups in one go: the answer of `stops(crossedBy:_:inHunt:)` for each
    /// segment, in order.
    func stops(crossedBy segments: [Segment], inHunt huntID: String?) async throws -> [[CrossedStop]]

    /// Publishes: validates the publication's files together (a bad file throws `HuntFileErrors`
    /// and changes nothing), then in one transaction replaces the definitions with them, records
    /// its revisions, drops the drafts it publishes and rescores every player. Throws
    /// `PublicationRace` when the published set is no longer the one it was planned from.
    @discardableResult
    func publish(_ publication: Publication) async throws -> SyncOutcome

    /// The fingerprint of the published files (`HuntCatalog.fingerprint`); nil when the
    /// definitions were not published from files.
    func publishedFingerprint() async throws -> String?

    /// Each hunt's latest revision, by hunt id (hunts published before vsh kept revisions have none).
    func latestRevisions() async throws -> [String: HuntRevision]

    /// A hunt's revisions, newest first.
    func revisions(huntID: String) async throws -> [HuntRevision]

    /// A hunt's draft, or nil.
    func draft(huntID: String) async throws -> HuntDraft?

    /// Keeps a draft in place of the hunt's last one.
    func saveDraft(_ draft: HuntDraft) async throws

    /// Drops a hunt's draft; false when it had none.
    @discardableResult
    func dropDraft(huntID: String) async throws -> Bool

    /// The hunts that have a draft, by id.
    func draftIDs() async throws -> [String]

    /// Replaces every hunt and stop with a catalog the caller validated itself.
    func replace(with catalog: HuntCatalog) async throws

    /// The hunt files (and `badges.json`) the definitions were last synced from, byte for byte, in
    /// file-name order with `badges.json` last: what `vsh hunts export` writes back. Empty when the
    /// definitions came from elsewhere (`replace(with:)`, a copy, a league synced before vsh kept
    /// them: the next sync that changes something keeps them).
    func publishedFiles() async throws -> [PublishedFile]

    /// The badges of the definitions, in `badges.json` order.
    func badgeDefinitions() async throws -> [Badge]

    /// Syncs the hunt files of a folder (every `*.geojson` and `badges.json`) when they changed
    /// (`publishFiles(_:badges:force:at:)`).
    @discardableResult
    func sync(directory: String, force: Bool) async throws -> SyncOutcome

    /// Every stop compiled into an in-memory `GeofenceIndex`, in catalog order (the order
    /// `stops(covering:)` answers in), optionally one hunt's.
    func compiledIndex(huntID: String?) async throws -> GeofenceIndex
}

/// A straight segment between two positions (WGS84 degrees, the line drawn in longitude and latitude).
public struct Segment: Hashable, Sendable {
    /// Where it starts.
    public var from: Coordinate
    /// Where it ends.
    public var to: Coordinate

    /// A segment from `from` to `to`.
    public init(from: Coordinate, to: Coordinate) {
        self.from = from
        self.to = to
    }
}

extension HuntStore {
    /// Every stop's, through the store's own `compiledIndex(huntID:)`.
    public func compiledIndex() async throws -> GeofenceIndex { try await compiledIndex(huntID: nil) }

    /// Every stop compiled into an in-memory `GeofenceIndex`, in catalog order
    /// (the order `stops(covering:)` answers in), optionally one hunt's, from `hunts()`.
    public func compiledIndex(huntID: String?) async throws -> GeofenceIndex {
        GeofenceIndex(
            stops: try await hunts().filter { huntID == nil || $0.hunt.id == huntID }.flatMap(\.hunt.stops))
    }

    /// One lookup after another; a store that can answer many in one read does so instead.
    public func stops(covering positions: [Coordinate], inHunt huntID: String?) async throws
        -> [[StopReference]]
    {
        var answers: [[StopReference]] = []
        for position in positions { answers.append(try await stops(covering: position, inHunt: huntID)) }
        return answers
    }

    /// One lookup after another; a store that can answer many in one read does so instead.
    public func stops(crossedBy segments: [Segment], inHunt huntID: String?) async throws -> [[CrossedStop]] {
        var answers: [[CrossedStop]] = []
        for segment in segments {
            answers.append(try await stops(crossedBy: segment.from, segment.to, inHunt: huntID))
        }
        return answers
    }
}

/// A hunt file or `badges.json` as the league's definitions were synced from it.
public struct PublishedFile: Sendable, Equatable {
    /// The file's name in the hunts folder (`strip-classics.geojson`, `badges.json`).
    public var name: String
    /// Its bytes.
    public var bytes: [UInt8]

    /// A file from its name and bytes.
    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    /// The files of a sync: each source's file name and bytes, then `badges.json` when there is one.
    public static func of(_ sources: [HuntCatalog.Source], badges: HuntCatalog.Source?) -> [PublishedFile] {
        (sources + (badges.map { [$0] } ?? [])).map {
            PublishedFile(
                name: String($0.path.split(separator: "/").last ?? Substring($0.path)), bytes: $0.bytes)
        }
    }
}
