public import Foundation
public import VSHCore
import VSHPhoto

/// Checks players in: the one pipeline the CLI, the server and replays share.
/// It reads the evidence, keeps the photo in the `PhotoStore`, and has the store
/// decide (with the `Verifier`) and record, in one transaction.
///
/// Bad input (an unreadable photo, an unknown player or hunt) throws before
/// anything is written: no check-in row and no stored photo.
public struct CheckInService: Sendable {
    /// Where hunts, players and check-ins are.
    public let store: any LeagueStore
    /// Where accepted and pending photos are kept.
    public let photos: any PhotoStore
    /// The rules that judge each submission.
    public var verifier = Verifier()
    /// How many photos a batch reads at once (at least 1).
    public var readWidth: Int

    /// - Parameters:
    ///   - store: where check-ins are decided and recorded.
    ///   - photos: where submitted photos are kept.
    ///   - readWidth: how many photos a batch reads at once; the caller's choice of cores.
    public init(store: any LeagueStore, photos: any PhotoStore, readWidth: Int = 1) {
        self.store = store
        self.photos = photos
        self.readWidth = readWidth
    }

    /// A photo check-in from the photo's bytes (a file's or an upload's).
    /// - Parameters:
    ///   - player: who checks in.
    ///   - bytes: the whole JPEG file.
    ///   - name: how errors name the photo (a path, `photo` for an upload).
    ///   - deviceFix: the device fix sent with the photo (position, time, accuracy radius in metres), if any.
    ///   - huntID: the hunt the player names, or nil to let the position decide.
    ///   - now: the received time.
    /// - Throws: `PhotoError` for an unreadable photo; `SubmissionError.invalidAccuracy`;
    ///   `LeagueError` for an unknown player or hunt.
    public func checkIn(
        player: PlayerID, photo bytes: [UInt8], name: String,
        deviceFix: (position: Coordinate, time: Date, accuracyMeters: Double?)? = nil, huntID: String?,
        now: Date
    )
        async throws -> RecordedCheckIn
    {
        let (submission, key) = try await self.submission(
            player: player, photo: bytes, name: name, deviceFix: deviceFix, huntID: huntID, now: now)
        let verifier = self.verifier
        return try await store.record(submission, photoFile: key) { verifier.evaluate($0, facts: $1) }
    }

    /// A device-GPS check-in: a position, when the device took it, and its accuracy radius in metres.
    /// - Throws: `SubmissionError.invalidAccuracy`; `LeagueError` for an unknown player or hunt.
    public func checkIn(
        player: PlayerID, position: Coordinate, time: Date, accuracyMeters: Double?, huntID: String?,
        now: Date
    ) async throws -> RecordedCheckIn {
        let submission = try await self.submission(
            player: player, position: position, time: time, accuracyMeters: accuracyMeters, huntID: huntID,
            now: now)
        let verifier = self.verifier
        return try await store.record(submission, photoFile: nil) { verifier.evaluate($0, facts: $1) }
    }

    /// Decides and records a submission made with `submission(…)` (and placed by `CodePlacement`).
    public func record(_ submission: Submission, photoFile: String?) async throws -> RecordedCheckIn {
        let verifier = self.verifier
        return try await store.record(submission, photoFile: photoFile) { verifier.evaluate($0, facts: $1) }
    }

    /// Reads a photo check-in and keeps its photo, without recording it: for a `GroupCommit`.
    /// The same checks as `checkIn(player:photo:…)`, in the same order; `playerKnown` when the
    /// caller has just read the player (a server's session): the store is not asked again (the
    /// group's transaction still refuses a player it does not find).
    /// `photoSHA256`: the photo's SHA-256 when the caller has computed it.
    /// - Returns: the submission and the stored photo's key.
    public func submission(
        player: PlayerID, photo bytes: [UInt8], photoSHA256: String? = nil, name: String,
        deviceFix: (position: Coordinate, time: Date, accuracyMeters: Double?)?, huntID: String?, now: Date,
        playerKnown: Bool = false, requirePosition: Bool = false
    ) async throws -> (submission: Submission, photoFile: String) {
        // The archive keeps the picture, not whatever else the upload carried (docs/security.md).
        let (photo, archived, archivedSHA256) = try PhotoReader.photoAndArchive(
            bytes: bytes, name: name, fileSHA256: photoSHA256)
        if requirePosition, deviceFix == nil, photo.metadata.position == nil {
            throw SubmissionError.noPosition(note: photo.metadata.positionNote ?? "none")
        }
        if let accuracy = deviceFix?.accuracyMeters, !(accuracy.isFinite && accuracy >= 0) {
            throw SubmissionError.invalidAccuracy
        }
        try await requireKnown(player: playerKnown ? nil : player, huntID: huntID)
        let key = try await photos.put(archived, sha256: archivedSHA256)
        let evidence: Submission.Evidence =
            deviceFix.map {
                .photoWithFix(photo, position: $0.position, time: $0.time, accuracyMeters: $0.accuracyMeters)
            } ?? .photo(photo)
        return (Submission(player: player, evidence: evidence, huntID: huntID, receivedAt: now), key)
    }

    /// A device-fix submission, checked as `checkIn(player:position:…)` checks it, not recorded
    /// (`playerKnown` as for a photo's).
    public func submission(
        player: PlayerID, position: Coordinate, time: Date, accuracyMeters: Double?, huntID: String?,
        now: Date, playerKnown: Bool = false
    ) async throws -> Submission {
        if let accuracyMeters, !(accuracyMeters.isFinite && accuracyMeters >= 0) {
            throw SubmissionError.invalidAccuracy
        }
        try await requireKnown(player: playerKnown ? nil : player, huntID: huntID)
        return Submission(
            player: player, evidence: .device(position: position, time: time, accuracyMeters: accuracyMeters),
            huntID: huntID, receivedAt: now)
    }

    /// One photo of a batch: recorded, or why it could not be read.
    public enum BatchItem: Sendable {
        case recorded(path: String, RecordedCheckIn)
        case unreadable(path: String, PhotoError)
    }

    /// Photo check-ins in bulk from files: the photos are read and hashed `readWidth` at a
    /// time, `batchSize` per transaction, and each batch is decided and recorded in one
    /// transaction, by the same rules as one-by-one check-ins. Unreadable photos are
    /// reported and left out. Results come in the order of `paths`.
    public func checkIn(
        player: PlayerID, photos paths: [String], huntID: String?, now: Date, batchSize: Int = 500
    )
        async throws -> [BatchItem]
    {
        try await requireKnown(player: player, huntID: huntID)
        var items: [BatchItem] = []
        let photos = self.photos
        let verifier = self.verifier
        let width = readWidth
        let slices = stride(from: 0, to: paths.count, by: max(1, batchSize)).map {
            Array(paths[$0..<min(paths.count, $0 + max(1, batchSize))])
        }
        // Each photo is read, hashed and copied into the store by one of `readWidth` tasks;
        // the next slice is read while this one is decided and committed.
        @Sendable func read(_ slice: [String]) -> Task<[Result<(Photo, String), PhotoError>], Never> {
            Task {
                await BoundedParallel.map(slice, width: width) {
                    path -> Result<(Photo, String), PhotoError> in
                    let photo: Photo
                    let bytes: [UInt8]
                    do throws(PhotoError) {
                        (photo, bytes) = try PhotoReader.photo(path: path)
                    } catch {
                        return .failure(error)
                    }
                    guard let key = try? await photos.put(bytes, sha256: photo.fileSHA256, durable: false)
                    else {
                        return .failure(.unreadable(file: path))
                    }
                    return .success((photo, key))
                }
            }
        }
        var pending = slices.first.map(read)
        for (index, slice) in slices.enumerated() {
            guard let reading = pending else { break }
            let outcomes = await reading.value
            pending = index + 1 < slices.count ? read(slices[index + 1]) : nil
            var batch: [(submission: Submission, photoFile: String?)] = []
            var order: [Int] = []
            var results = [BatchItem?](repeating: nil, count: slice.count)
            for (i, outcome) in outcomes.enumerated() {
                switch outcome {
                case .success(let (photo, key)):
                    batch.append(
                        (
                            Submission(
                                player: player, evidence: .photo(photo), huntID: huntID, receivedAt: now), key
                        ))
                    order.append(i)
                case .failure(let error):
                    results[i] = .unreadable(path: slice[i], error)
                }
            }
            // The photos are durable before the check-ins that name them are committed.
            try await photos.flush()
            let recorded = try await store.recordBatch(batch) { verifier.evaluate($0, facts: $1) }
            for (k, r) in recorded.enumerated() { results[order[k]] = .recorded(path: slice[order[k]], r) }
            items += results.compactMap { $0 }
        }
        return items
    }

    private func requireKnown(player: PlayerID?, huntID: String?) async throws {
        if let player, try await store.player(id: player) == nil { throw LeagueError.unknownPlayerID(player) }
        if let huntID, try await store.hunt(id: huntID) == nil {
            throw LeagueError.unknownHunt(id: huntID, known: try await store.hunts().map(\.hunt.id))
        }
    }
}
