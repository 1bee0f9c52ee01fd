public import Foundation

/// Where a fix came from.
public enum FixSource: String, Sendable {
    /// A photo's EXIF.
    case photo
    /// A device's GPS, reported directly (`vsh checkin --fix`).
    case device
    /// A recorded walk replayed through the engine.
    case replay
}

/// A position at a time, with its accuracy radius.
public struct Fix: Equatable, Sendable {
    /// Where the fix was, in WGS84 degrees.
    public var position: Coordinate
    /// When the fix was taken.
    public var time: Date
    /// The accuracy radius in metres, if known.
    public var accuracyMeters: Double?
    /// Where the fix came from.
    public var source: FixSource
    /// When the check-in that holds it was received (the server's clock), for a recorded fix.
    public var receivedAt: Date?
    /// The hunt of the check-in that holds it, for a recorded fix at a stop.
    public var huntID: String?

    /// A fix from its parts.
    public init(
        position: Coordinate, time: Date, accuracyMeters: Double?, source: FixSource, receivedAt: Date? = nil,
        huntID: String? = nil
    ) {
        self.huntID = huntID
        self.position = position
        self.time = time
        self.accuracyMeters = accuracyMeters
        self.source = source
        self.receivedAt = receivedAt
    }
}

/// One check-in attempt as it arrives.
public struct Submission: Sendable {
    /// What a submission offers as proof of presence.
    public enum Evidence: Sendable {
        /// A photo: its metadata and identities.
        case photo(Photo)
        /// A device fix: position, time and accuracy as the device reported them.
        case device(position: Coordinate, time: Date, accuracyMeters: Double?)
        /// A photo and the device fix taken with it: the phone's normal case, since browsers and
        /// iOS strip GPS from uploads. The fix places the player; the photo's own GPS, when it
        /// has any, must agree with it, and the photo's capture time bounds freshness
        /// (docs/anti-cheat.md, "A photo with a device fix").
        case photoWithFix(Photo, position: Coordinate, time: Date, accuracyMeters: Double?)
    }

    /// Who submits it.
    public var player: PlayerID
    /// The photo or the device fix.
    public var evidence: Evidence
    /// The hunt the player names, or nil to let the position decide.
    public var huntID: String?
    /// When vsh received it (`--now` replaces the clock).
    public var receivedAt: Date

    /// Set for device fixes that come from a replayed walk rather than a live device.
    public var isReplay = false
    /// The stop the player means (`stop`), when they name one: it wins where stops overlap.
    public var stopID: String?
    /// The code the player brings (printed at the stop, or from its screen), as typed.
    public var code: String?
    /// The stop whose code stands in for a position the GPS could not give (`CodePlacement`): the
    /// evidence's fix is then a point inside that stop, and the `code` rule must pass.
    public var placedByCode: String?

    /// Set when a moderator's approval decides a check-in again whose code passed when it arrived
    /// (codes are not kept): the `code` rule takes that result as it was.
    public var codeChecked = false

    /// The player's answer to the stop's question (`answer`), as typed or chosen.
    public var answer: String?
    /// Set when a moderator's approval decides a check-in again whose answer was judged when it
    /// arrived (answers are not kept): whether it was right.
    public var answerChecked: Bool?

    /// The recorded check-in this submission decides again (a moderator's approval re-runs the
    /// rules): the history questions leave it out, so that it is not its own neighbour or copy.
    public var recheckOf: Int64?

    /// A submission from its parts (see each property).
    public init(
        player: PlayerID, evidence: Evidence, huntID: String?, receivedAt: Date, isReplay: Bool = false
    ) {
        self.player = player
        self.evidence = evidence
        self.huntID = huntID
        self.receivedAt = receivedAt
        self.isReplay = isReplay
    }

    /// The reported position, whatever its quality (checked by the `position` rule).
    public var reportedPosition: Coordinate? {
        switch evidence {
        case .photo(let photo): return photo.metadata.position
        case .device(let position, _, _), .photoWithFix(_, let position, _, _): return position
        }
    }

    /// The reported accuracy radius in metres: the photo's GPS error or the device's.
    public var accuracyMeters: Double? {
        switch evidence {
        case .photo(let photo): return photo.metadata.accuracyMeters
        case .device(_, _, let accuracy), .photoWithFix(_, _, _, let accuracy): return accuracy
        }
    }

    /// Where the fix comes from: a photo, a device, or a replayed walk. A photo with a device
    /// fix is a photo check-in (`photo`): its photo is kept and counts for `unique_photo`.
    public var source: FixSource {
        switch evidence {
        case .photo, .photoWithFix: return .photo
        case .device: return isReplay ? .replay : .device
        }
    }

    /// The photo, for a photo check-in (with or without a device fix).
    public var photo: Photo? {
        switch evidence {
        case .photo(let photo), .photoWithFix(let photo, _, _, _): return photo
        case .device: return nil
        }
    }

    /// The device fix's time, when the submission has a device fix.
    public var deviceTime: Date? {
        switch evidence {
        case .device(_, let time, _), .photoWithFix(_, _, let time, _): return time
        case .photo: return nil
        }
    }
}
