public import Foundation
public import VSHCore
import VSHPhoto
public import VSHStore

/// Checks players in: reads the evidence, keeps the photo, and has the store
/// decide (with the `Verifier`) and record, in one transaction.
///
/// Bad input (an unreadable photo, an unknown player or hunt) throws before
/// anything is written: no check-in row and no archived photo.
public struct CheckInService {
    public let store: GeofenceStore
    public let archive: PhotoArchive
    public var verifier = Verifier()

    public init(store: GeofenceStore) {
        self.store = store
        self.archive = PhotoArchive(databasePath: store.path)
    }

    /// A photo check-in.
    public func checkIn(player: String, photo path: String, huntID: String?, now: Date) throws -> RecordedCheckIn {
        let (photo, bytes) = try PhotoReader.photo(path: path)
        try requireKnown(player: player, huntID: huntID)
        let file = try archive.store(bytes, sha256: photo.fileSHA256)
        let submission = Submission(player: player, evidence: .photo(photo), huntID: huntID, receivedAt: now)
        return try store.record(submission, photoFile: file) { verifier.evaluate($0, facts: $1) }
    }

    /// A device-GPS check-in.
    public func checkIn(
        player: String, position: Coordinate, time: Date, accuracyMeters: Double?, huntID: String?, now: Date
    ) throws -> RecordedCheckIn {
        if let accuracyMeters, !(accuracyMeters.isFinite && accuracyMeters >= 0) {
            throw InputError("accuracy must be a distance in metres, 0 or more", status: .usage)
        }
        try requireKnown(player: player, huntID: huntID)
        let submission = Submission(
            player: player, evidence: .device(position: position, time: time, accuracyMeters: accuracyMeters),
            huntID: huntID, receivedAt: now)
        return try store.record(submission, photoFile: nil) { verifier.evaluate($0, facts: $1) }
    }

    /// One photo of a batch: recorded, or why it could not be read.
    public enum BatchItem: Sendable {
        case recorded(path: String, RecordedCheckIn)
        case unreadable(path: String, PhotoError)
    }

    /// Photo check-ins in bulk: the photos are read and hashed on every core,
    /// `batchSize` at a time, and each batch is decided and recorded in one
    /// transaction, by the same rules as one-by-one check-ins. Unreadable photos
    /// are reported and left out. Results come in the order of `paths`.
    public func checkIn(player: String, photos paths: [String], huntID: String?, now: Date, batchSize: Int = 500) throws -> [BatchItem] {
        try requireKnown(player: player, huntID: huntID)
        var items: [BatchItem] = []
        var start = 0
        while start < paths.count {
            let slice = Array(paths[start..<min(paths.count, start + batchSize)])
            start += batchSize
            let archive = self.archive
            let read = ParallelMap.map(slice) { path -> Result<(Photo, String), PhotoError> in
                do throws(PhotoError) {
                    let (photo, bytes) = try PhotoReader.photo(path: path)
                    guard let file = try? archive.store(bytes, sha256: photo.fileSHA256, durable: false) else {
                        return .failure(.unreadable(file: path))
                    }
                    return .success((photo, file))
                } catch {
                    return .failure(error)
                }
            }
            var batch: [(submission: Submission, photoFile: String?)] = []
            var order: [Int] = []
            var results = [BatchItem?](repeating: nil, count: slice.count)
            for (i, outcome) in read.enumerated() {
                switch outcome {
                case .success(let (photo, file)):
                    batch.append((Submission(player: player, evidence: .photo(photo), huntID: huntID, receivedAt: now), file))
                    order.append(i)
                case .failure(let error):
                    results[i] = .unreadable(path: slice[i], error)
                }
            }
            // The photos are on disk before the check-ins that name them are committed.
            archive.flush()
            let recorded = try store.recordBatch(batch) { verifier.evaluate($0, facts: $1) }
            for (k, r) in recorded.enumerated() { results[order[k]] = .recorded(path: slice[order[k]], r) }
            items += results.compactMap { $0 }
        }
        return items
    }

    private func requireKnown(player: String, huntID: String?) throws {
        guard try store.player(named: player) != nil else {
            throw InputError("no player \"\(player)\" (add one with: vsh player add NAME)")
        }
        if let huntID, try store.hunt(id: huntID) == nil {
            let known = try store.hunts().map(\.hunt.id).joined(separator: ", ")
            throw InputError("no hunt \"\(huntID)\"" + (known.isEmpty ? "" : " (hunts: \(known))"))
        }
    }
}
