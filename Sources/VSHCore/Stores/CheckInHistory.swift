public import Foundation

/// What the check-in rules may ask of a league's past, inside the transaction that
/// records a new check-in (so the answers cannot change between decision and write).
///
/// Each backend implements it over its own transaction; an in-memory one serves the
/// rule tests. `CheckInFacts.gather` asks the questions, the same way for every backend.
public protocol CheckInHistory {
    /// A hunt's definition, or nil.
    func hunt(id: String) throws -> Hunt?
    /// Every hunt id, in catalog order (for the message naming an unknown hunt).
    func huntIDs() throws -> [String]
    /// The hunts the player joined (asked only when a private hunt is in question).
    func joinedHunts(player: PlayerID) throws -> Set<String>
    /// The hunts the player is on a team of (asked only when a teams hunt is in question).
    func teamHunts(player: PlayerID) throws -> Set<String>
    /// The stops covering a position, boundary included, in hunt then stop order.
    func stops(covering position: Coordinate, inHunt huntID: String?) throws -> [StopReference]
    /// The nearest stop to a position, with the geodesic distance to its boundary in metres.
    func nearestStop(to position: Coordinate, inHunt huntID: String?) throws -> NearestStop?
    /// The stops of a hunt the player holds an accepted check-in at, with its earliest fix time
    /// (pending ones do not count here: points are derived from accepted check-ins, and a
    /// check-in's answer says what the board will show).
    func visitedStops(player: PlayerID, hunt huntID: String) throws -> [String: Date]
    /// What the player did with the questions of a hunt's stops: wrong answers given at each
    /// (any state), and whether an accepted or pending check-in answered it right, leaving out
    /// `checkIn` (a check-in decided again). Asked only of a hunt with a question.
    func answerTries(player: PlayerID, hunt huntID: String, excluding checkIn: Int64?) throws
        -> [String: AnswerTries]
    /// The player's accepted or pending check-ins nearest in fix time: the last at or before
    /// `time`, then the first after it (each when there is one, in that order). Pending ones
    /// count, so that a check-in sent to review cannot be followed by an impossible journey.
    func neighbourFixes(player: PlayerID, around time: Date, excluding checkIn: Int64?) throws -> [Fix]
    /// The uses of a picture: check-ins (anyone's, any verdict) whose image-data hash is
    /// `image` or whose pixel hash is `pixels`; nil when there is none.
    func photoUses(image: String, pixels: String?, player: PlayerID, excluding checkIn: Int64?) throws
        -> PhotoUses?
    /// The nearest near copy of a perceptual hash among other players' check-ins, leaving out
    /// exact copies of the picture (image-data hash `image` or pixel hash `pixels`): those are
    /// `photoUses`' to judge.
    func nearCopy(of perceptualHash: UInt64, excluding player: PlayerID, image: String, pixels: String?)
        throws
        -> NearCopy?
}

extension CheckInFacts {
    /// Gathers what the rules need to decide `submission` from a league's history.
    ///
    /// The hunt is the one named, else the hunt of the stop covering the position,
    /// else the hunt of the nearest stop.
    /// - Throws: `LeagueError.unknownHunt` when the submission names a hunt that does not exist.
    public static func gather(for submission: Submission, from history: some CheckInHistory) throws
        -> CheckInFacts
    {
        // A private hunt is played only by the players who joined it: its stops are not theirs
        // to check in at, and naming it is naming a hunt that does not exist.
        // A teams hunt is played only by players on one of its teams.
        var joined: Set<String>?
        var onTeams: Set<String>?
        func playable(_ id: String) throws -> Bool {
            guard let candidate = try history.hunt(id: id) else { return true }
            if candidate.visibility == .private {
                if joined == nil { joined = try history.joinedHunts(player: submission.player) }
                guard joined?.contains(id) ?? false else { return false }
            }
            if candidate.play == .teams {
                if onTeams == nil { onTeams = try history.teamHunts(player: submission.player) }
                guard onTeams?.contains(id) ?? false else { return false }
            }
            return true
        }
        var hunt: Hunt?
        if let requested = submission.huntID {
            guard let found = try history.hunt(id: requested), try playable(requested) else {
                throw LeagueError.unknownHunt(id: requested, known: try history.huntIDs().filter(playable))
            }
            hunt = found
        }
        var facts = CheckInFacts(hunt: hunt)
        if let position = submission.reportedPosition {
            let covering = try history.stops(covering: position, inHunt: submission.huntID).filter {
                try playable($0.huntID)
            }
            if hunt == nil, let first = covering.first { hunt = try history.hunt(id: first.huntID) }
            if covering.isEmpty,
                let nearest = try history.nearestStop(to: position, inHunt: submission.huntID),
                try playable(nearest.stop.huntID)
            {
                if hunt == nil { hunt = try history.hunt(id: nearest.stop.huntID) }
                if let stop = hunt?.stops.first(where: { $0.id == nearest.stop.stopID }) {
                    facts.nearestStop = (stop, nearest.distanceMeters)
                }
            }
            facts.hunt = hunt
            facts.coveringStops = covering.compactMap { ref in hunt?.stops.first { $0.id == ref.stopID } }
        }
        if let hunt {
            facts.visitedStops = try history.visitedStops(player: submission.player, hunt: hunt.id)
            if hunt.stops.contains(where: { $0.question != nil }) {
                facts.answerTries = try history.answerTries(
                    player: submission.player, hunt: hunt.id, excluding: submission.recheckOf)
            }
        }
        if let time = submission.fixTime(in: hunt) {
            facts.neighbourFixes = try history.neighbourFixes(
                player: submission.player, around: time, excluding: submission.recheckOf)
        }
        if let photo = submission.photo {
            facts.photoUses = try history.photoUses(
                image: photo.imageSHA256, pixels: photo.pixelSHA256, player: submission.player,
                excluding: submission.recheckOf)
            if let hash = photo.perceptualHash {
                facts.nearCopy = try history.nearCopy(
                    of: hash, excluding: submission.player, image: photo.imageSHA256,
                    pixels: photo.pixelSHA256)
            }
        }
        return facts
    }
}

extension Submission {
    /// The capture time as the verifier will see it for freshness: the photo's GPS time, else
    /// its camera clock made absolute in the hunt's time zone (UTC without a hunt), else the
    /// device fix's time.
    public func captureTime(in hunt: Hunt?) -> Date? {
        switch evidence {
        case .device(_, let time, _): return time
        case .photo(let photo): return photo.captureTime(in: hunt)
        case .photoWithFix(let photo, _, let time, _): return photo.captureTime(in: hunt) ?? time
        }
    }

    /// The time badges of the hour and the day go by (`ScoredCheckIn.clock`): the photo's GPS
    /// time, else the device fix's time, else when it was received; never a bare camera clock.
    public var clockTime: Date {
        switch evidence {
        case .device(_, let time, _): return time
        case .photo(let photo): return photo.metadata.gpsTime ?? receivedAt
        case .photoWithFix(let photo, _, let time, _): return photo.metadata.gpsTime ?? time
        }
    }

    /// The time of the position that places the player (the one `travel_speed` compares): the
    /// device fix's time when there is a device fix, else the photo's capture time.
    public func fixTime(in hunt: Hunt?) -> Date? {
        deviceTime ?? captureTime(in: hunt)
    }
}

extension Photo {
    /// GPS time, else the camera clock made absolute in the hunt's time zone (UTC without a hunt).
    public func captureTime(in hunt: Hunt?) -> Date? {
        let zone = TimeZone(identifier: hunt?.timeZone ?? "UTC") ?? TimeZone(identifier: "UTC")!
        return metadata.gpsTime ?? metadata.takenAt(inTimeZone: zone)
    }
}
