import Foundation
internal import GRDB
import VSHCore

// The rows the SpatiaLite store reads, as Codable records: a column's name and type are
// written once, here, and a query that drops a column fails to decode instead of reading nil.
// (The hottest loops, stops and lookups, read columns by position instead; see there.)

/// A `hunts` row.
struct HuntRow: Decodable, FetchableRecord {
    var id: String
    var name: String
    var description: String
    var difficulty: String
    var bonusPoints: Int
    var ordered: Bool
    var timezone: String
    var startsAt: String?
    var endsAt: String?
    var maxAccuracyMeters: Double
    var maxPhotoAgeSeconds: Double
    var maxFixAgeSeconds: Double
    var lateGraceSeconds: Double
    var proof: String
    var maxSpeedKmh: Double
    var minDurationSeconds: Double?
    var toleranceMeters: Double
    var image: String?
    var file: String
    var translations: String?
    var visibility: String
    var joinCode: String?
    var play: String
    var maxTeamSize: Int?
    var sharePositions: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, description, difficulty, ordered, timezone, image, file, translations, visibility, play
        case joinCode = "join_code"
        case maxTeamSize = "max_team_size"
        case sharePositions = "share_positions"
        case bonusPoints = "bonus_points"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
        case maxAccuracyMeters = "max_accuracy_m"
        case maxPhotoAgeSeconds = "max_photo_age_s"
        case maxFixAgeSeconds = "max_fix_age_s"
        case lateGraceSeconds = "late_grace_s"
        case proof
        case maxSpeedKmh = "max_speed_kmh"
        case minDurationSeconds = "min_duration_s"
        case toleranceMeters = "tolerance_m"
    }

    /// The hunt's definition, without its stops.
    var hunt: Hunt {
        var hunt = Hunt(id: id, name: name)
        hunt.description = description
        hunt.difficulty = Hunt.Difficulty(rawValue: difficulty) ?? .medium
        hunt.bonusPoints = bonusPoints
        hunt.ordered = ordered
        hunt.timeZone = timezone
        hunt.startsAt = startsAt.flatMap(RFC3339.parse)
        hunt.endsAt = endsAt.flatMap(RFC3339.parse)
        hunt.maxAccuracyMeters = maxAccuracyMeters
        hunt.maxPhotoAgeSeconds = maxPhotoAgeSeconds
        hunt.maxFixAgeSeconds = maxFixAgeSeconds
        hunt.lateGraceSeconds = lateGraceSeconds
        hunt.setProof(text: proof)
        hunt.maxSpeedKmh = maxSpeedKmh
        hunt.minDurationSeconds = minDurationSeconds
        hunt.toleranceMeters = toleranceMeters
        hunt.image = image
        hunt.translations = HuntFile.translations(stored: translations)
        hunt.visibility = Hunt.Visibility(rawValue: visibility) ?? .public
        hunt.joinCode = joinCode
        hunt.play = Hunt.Play(rawValue: play) ?? .solo
        hunt.maxTeamSize = maxTeamSize
        hunt.sharePositions = sharePositions
        return hunt
    }
}

/// One line of a leaderboard query.
/// Read by position, as every board's statement selects it (`id, name, points, hunts, stops, badges,
/// reached`): a board of all players reads one a player, and the `Decodable` path looked each
/// column up by name (a quarter of `vsh leaderboard --format csv`'s time over 100,000 players).
struct LeaderboardRow: FetchableRecord {
    var id: Int64
    var name: String
    var points: Int
    var hunts: Int
    var stops: Int
    var badges: Int
    var reached: Double

    init(row: Row) {
        id = row[0]
        name = row[1]
        points = row[2]
        hunts = row[3]
        stops = row[4]
        badges = row[5]
        reached = row[6]
    }
}

/// A player's point totals from their score events.
struct TotalsRow: Decodable, FetchableRecord {
    var points: Int
    var stops: Int
    var hunts: Int
}

/// A player's progress in one hunt.
struct HuntProgressRow: Decodable, FetchableRecord {
    var id: String
    var name: String
    var total: Int
    var visited: Int
    var completed: Double?
}

/// A badge a player earned.
struct EarnedBadgeRow: Decodable, FetchableRecord {
    var id: String
    var name: String
    var description: String
    var points: Int
    var atEpoch: Double
    var checkinID: Int64

    enum CodingKeys: String, CodingKey {
        case id, name, description, points
        case atEpoch = "at_epoch"
        case checkinID = "checkin_id"
    }
}

/// One of a player's latest check-ins.
struct RecentCheckInRow: Decodable, FetchableRecord {
    var id: Int64
    var receivedAt: String
    var huntID: String?
    var stopID: String?
    var stopName: String?
    var state: CheckInState
    var points: Int
    var hasPhoto: Bool
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case id, state, points, reason
        case hasPhoto = "has_photo"
        case receivedAt = "received_at"
        case huntID = "hunt_id"
        case stopID = "stop_id"
        case stopName = "stop_name"
    }
}

/// A stop of a collage with the player's visit and photo.
struct CollageTileRow: Decodable, FetchableRecord {
    var id: String
    var name: String
    var visited: Bool
    var photo: String?
}

/// A pending check-in with its player and stop.
struct PendingRow: Decodable, FetchableRecord {
    var id: Int64
    var playerID: Int64
    var name: String
    var receivedAt: String
    var huntID: String?
    var stopID: String?
    var stopName: String?
    var rules: String
    var photoFile: String?
    var lat: Double?
    var lon: Double?
    var accuracyM: Double?
    var fixTime: String?

    enum CodingKeys: String, CodingKey {
        case id, name, rules, lat, lon
        case fixTime = "fix_time"
        case accuracyM = "accuracy_m"
        case playerID = "player_id"
        case receivedAt = "received_at"
        case huntID = "hunt_id"
        case stopID = "stop_id"
        case stopName = "stop_name"
        case photoFile = "photo_file"
    }
}

/// A check-in's state and its player, for a moderator's decision.
struct CheckInStateRow: Decodable, FetchableRecord {
    var state: CheckInState
    var playerID: Int64
    var name: String

    enum CodingKeys: String, CodingKey {
        case state, name
        case playerID = "player_id"
    }
}

/// A hunt as scoring reads it.
struct ScoringHuntRow: Decodable, FetchableRecord {
    var id: String
    var bonusPoints: Int
    var difficulty: String
    var ordered: Bool
    var timezone: String

    enum CodingKeys: String, CodingKey {
        case id, difficulty, ordered, timezone
        case bonusPoints = "bonus_points"
    }
}

/// A stop's id, points and secrets (for its question's points).
struct StopPointsRow: Decodable, FetchableRecord {
    var id: String
    var points: Int
    var secrets: String?
}

/// A `badges` row.
struct BadgeRow: Decodable, FetchableRecord {
    var id: String
    var name: String
    var description: String
    var points: Int
    var rule: String
}

/// An accepted check-in as scoring reads it.
/// `id, hunt_id, stop_id, fix_epoch, clock_epoch[, answer_right]`, read by position: a heavy
/// player's rescore reads thousands (the Decodable path looked each column up by name).
struct ScoredRow: FetchableRecord {
    var id: Int64
    var huntID: String
    var stopID: String
    var fixEpoch: Double
    var clockEpoch: Double?
    var answered: Bool

    init(row: Row) {
        id = row[0]
        huntID = row[1]
        stopID = row[2]
        fixEpoch = row[3]
        clockEpoch = row[4]
        answered = row.count > 5 && (row[5] as Int64?) == 1
    }

    /// The row as `RawStatement` reads it (the same columns in the same order); nil when a column
    /// the statements' conditions rule out NULL is NULL.
    init?(_ row: borrowing RawStatement.Columns) {
        guard let id = row.int64(0), let huntID = row.text(1), let stopID = row.text(2),
            let fixEpoch = row.double(3)
        else { return nil }
        (self.id, self.huntID, self.stopID, self.fixEpoch) = (id, huntID, stopID, fixEpoch)
        clockEpoch = row.double(4)
        answered = row.int64(5) == 1
    }

    /// Every row of `sql` (bound to `values`) as scoring takes it, through `RawStatement`.
    static func checkIns(_ db: Database, _ sql: String, _ values: [RawStatement.Value]) throws
        -> [ScoredCheckIn]
    {
        var found: [ScoredCheckIn] = []
        try RawStatement(db, sql).rows(values) { row in
            if let scored = ScoredRow(row) { found.append(scored.checkIn) }
            return true
        }
        return found
    }

    /// The check-in as scoring takes it.
    var checkIn: ScoredCheckIn {
        ScoredCheckIn(
            id: id, huntID: huntID, stopID: stopID, time: Date(timeIntervalSince1970: fixEpoch),
            clock: clockEpoch.map(Date.init(timeIntervalSince1970:)), answered: answered)
    }
}
