import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHTestSupport

/// Issue 18: a batch of photo check-ins reads the next slice (read, hash, copy into the photo
/// store, `readWidth` at a time) while the current one is decided and committed. In slices of
/// three, the real photos (a re-used one and unreadable ones among them) come out as in one
/// slice: the same files in the same order, the same verdicts, points and archived photos.
@Suite struct BatchPipelineTests {
    static func outcome(_ item: CheckInService.BatchItem) -> String {
        switch item {
        case .recorded(let path, let checkIn):
            let name = URL(fileURLWithPath: path).lastPathComponent
            return
                "\(name) \(checkIn.decision.verdict) \(checkIn.decision.stop?.id ?? "-") \(checkIn.decision.points) \(checkIn.photoFile ?? "-")"
        case .unreadable(let path, let error):
            return "\(URL(fileURLWithPath: path).lastPathComponent) unreadable \(error)"
        }
    }

    @Test func slicesReadAheadDecideLikeOneSlice() async throws {
        let folder = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".jpg")
        }.sorted()
        // Every photo twice: the second copy of each is a re-used photo.
        let paths = (names + names).map { folder.appendingPathComponent($0).path }
        #expect(names.contains("truncated.jpg") && names.contains("not-a-jpeg.jpg"))
        let now = try #require(RFC3339.parse("2026-11-21T20:00:00Z"))
        var answers: [[String]] = []
        for batchSize in [500, 3] {
            let league = try await League()
            try await league.add("Ann")
            let items = try await league.service.checkIn(
                player: try await league.id("Ann"), photos: paths, huntID: nil, now: now, batchSize: batchSize
            )
            #expect(items.count == paths.count)
            answers.append(items.map(Self.outcome))
            for case .recorded(_, let checkIn) in items {
                let key = try #require(checkIn.photoFile)
                #expect(try await league.service.photos.get(key) != nil, "\(key) archived")
            }
        }
        #expect(answers[0] == answers[1])
        #expect(answers[1].contains { $0.contains(" accepted ") })
        #expect(answers[1].contains { $0.contains(" unreadable ") })
    }
}
