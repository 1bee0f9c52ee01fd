public import Foundation
public import VSHCore
import VSHGeodesy

/// Where a stop's code stands in for the GPS (casino floors, museum halls: docs/anti-cheat.md,
/// "Codes at a stop"). A check-in that brings a code, or names a stop, is matched to its stop
/// here, before the rules run; when its own position cannot place the player (none, or one
/// within `reachMeters` of the stop's edge, which is how far indoor GPS strays), its fix becomes a
/// point inside the stop and the `code` rule must then pass. A position further away stays: a code
/// passed to a friend elsewhere does not move them.
public enum CodePlacement {
    /// How far from a stop's edge a position may be and still be replaced by the stop's code,
    /// metres: indoor GPS is off by 50 to 200 m.
    public static let reachMeters = 250.0

    /// The stop a check-in means: the one it names (`stop`), else the one whose printed code it
    /// brings; nil when it does neither.
    /// - Throws: `SubmissionError.unknownStop` for a named stop no hunt in `hunts` has;
    ///   `SubmissionError.codeNamesNoStop` for a code that is no printed code.
    public static func stop(named stopID: String?, code: String?, in hunts: [Hunt]) throws -> Stop? {
        if let stopID, !stopID.isEmpty {
            for hunt in hunts { if let stop = hunt.stops.first(where: { $0.id == stopID }) { return stop } }
            throw SubmissionError.unknownStop(stopID)
        }
        guard let code, !code.isEmpty else { return nil }
        for hunt in hunts {
            if let stop = hunt.stops.first(where: { $0.code.map { StopCode.matches(code, $0) } ?? false }) {
                return stop
            }
        }
        throw SubmissionError.codeNamesNoStop
    }

    /// Whether the code of `stop` replaces the check-in's own position (`position`, the device
    /// fix's or the photo's GPS; nil when it has none). Never when the stop has no code, or asks
    /// for the phone's own position and there is no device fix (`hasDeviceFix`).
    public static func standsIn(
        for stop: Stop, in hunt: Hunt? = nil, position: Coordinate?, hasDeviceFix: Bool
    )
        -> Bool
    {
        guard stop.hasCode else { return false }
        if stop.requires(.fix, in: hunt) && !hasDeviceFix { return false }
        guard let position else { return true }
        return Geodesic.distanceMeters(from: position, toBoundaryOf: stop.geofence) <= reachMeters
    }

    /// Whether the check-in's code will place the player whatever its photo says: it brings a code,
    /// and the stop it means (`stop(named:code:in:)`) takes one in place of a position. A photo
    /// without GPS is then kept, not refused for want of a position.
    /// - Throws: as `stop(named:code:in:)`, before anything is kept.
    public static func codePlaces(stopID: String?, code: String?, in hunts: [Hunt], hasDeviceFix: Bool) throws
        -> Bool
    {
        guard code != nil, let stop = try stop(named: stopID, code: code, in: hunts) else { return false }
        return standsIn(for: stop, in: hunt(of: stop, in: hunts), position: nil, hasDeviceFix: hasDeviceFix)
    }

    /// `submission` placed (`place`, unless `codeOnly` made it), and refused when it is a photo that
    /// nothing places.
    /// - Throws: as `place`; `SubmissionError.noPosition`.
    public static func finish(_ submission: Submission, stopID: String?, code: String?, in hunts: [Hunt])
        throws
        -> Submission
    {
        let placed =
            submission.placedByCode == nil
            ? try place(submission, stopID: stopID, code: code, in: hunts) : submission
        if let photo = placed.photo, placed.reportedPosition == nil {
            throw SubmissionError.noPosition(note: photo.metadata.positionNote ?? "none")
        }
        return placed
    }

    /// The hunt of `stop` among `hunts`.
    public static func hunt(of stop: Stop, in hunts: [Hunt]) -> Hunt? { hunts.first { $0.id == stop.huntID } }

    /// A check-in that brings only a code (no photo, no fix): the stop the code (or `stopID`)
    /// names places the player, inside it, when the check-in arrived.
    /// - Throws: as `stop(named:code:in:)`; `SubmissionError.codeCannotPlace` when the stop's code
    ///   cannot stand in for a position.
    public static func codeOnly(
        player: PlayerID, stopID: String?, code: String, huntID: String?, in hunts: [Hunt], now: Date
    ) throws -> Submission {
        guard let stop = try Self.stop(named: stopID, code: code, in: hunts) else {
            throw SubmissionError.codeNamesNoStop
        }
        guard standsIn(for: stop, in: hunt(of: stop, in: hunts), position: nil, hasDeviceFix: false) else {
            throw SubmissionError.codeCannotPlace(stop: stop.name)
        }
        let submission = Submission(
            player: player,
            evidence: .device(position: stop.geofence.interiorPoint, time: now, accuracyMeters: 0),
            huntID: huntID ?? stop.huntID, receivedAt: now)
        var placed = try place(submission, stopID: stop.id, code: code, in: hunts)
        placed.placedByCode = stop.id
        return placed
    }

    /// `submission` matched to the stop it means among `hunts`: `stopID` and `code` set, the hunt
    /// named, and, where the code stands in for the position, the evidence's fix moved inside
    /// the stop (a device fix taken when the check-in arrived, accuracy 0) and `placedByCode` set.
    public static func place(
        _ submission: Submission, stopID: String?, code: String?, in hunts: [Hunt]
    ) throws -> Submission {
        var placed = submission
        let typed = code.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
        placed.code = typed
        guard let stop = try Self.stop(named: stopID, code: typed, in: hunts) else { return placed }
        placed.stopID = stop.id
        if placed.huntID == nil { placed.huntID = stop.huntID }
        guard typed != nil,
            standsIn(
                for: stop, in: hunt(of: stop, in: hunts), position: submission.reportedPosition,
                hasDeviceFix: submission.deviceTime != nil)
        else { return placed }
        let point = stop.geofence.interiorPoint
        let time = submission.deviceTime ?? submission.receivedAt
        switch submission.evidence {
        case .photo(let photo), .photoWithFix(let photo, _, _, _):
            placed.evidence = .photoWithFix(photo, position: point, time: time, accuracyMeters: 0)
        case .device:
            placed.evidence = .device(position: point, time: time, accuracyMeters: 0)
        }
        placed.placedByCode = stop.id
        return placed
    }
}
