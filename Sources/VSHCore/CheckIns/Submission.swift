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
    public var position: Coordinate
    public var time: Date
    public var accuracyMeters: Double?
    public var source: FixSource

    public init(position: Coordinate, time: Date, accuracyMeters: Double?, source: FixSource) {
        self.position = position
        self.time = time
        self.accuracyMeters = accuracyMeters
        self.source = source
    }
}

/// One check-in attempt as it arrives.
public struct Submission: Sendable {
    public enum Evidence: Sendable {
        /// A photo: its metadata and identities.
        case photo(Photo)
        /// A device fix: position, time and accuracy as the device reported them.
        case device(position: Coordinate, time: Date, accuracyMeters: Double?)
    }

    /// Who submits it.
    public var player: PlayerID
    public var evidence: Evidence
    /// The hunt the player names, or nil to let the position decide.
    public var huntID: String?
    /// When vsh received it (`--now` replaces the clock).
    public var receivedAt: Date

    /// Set for device fixes that come from a replayed walk rather than a live device.
    public var isReplay = false

    public init(player: PlayerID, evidence: Evidence, huntID: String?, receivedAt: Date, isReplay: Bool = false) {
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
        case .device(let position, _, _): return position
        }
    }

    public var accuracyMeters: Double? {
        switch evidence {
        case .photo(let photo): return photo.metadata.accuracyMeters
        case .device(_, _, let accuracy): return accuracy
        }
    }

    public var source: FixSource {
        if case .photo = evidence { return .photo }
        return isReplay ? .replay : .device
    }

    public var photo: Photo? {
        if case .photo(let photo) = evidence { return photo }
        return nil
    }
}
