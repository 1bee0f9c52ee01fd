import Foundation
import Testing
import VSHCore
import VSHHost
import VSHTestSupport

/// Hunts as published revisions, on every backend: files and the console each publish revisions,
/// a stale file never replaces a newer console revision unless forced, a folder that lacks a
/// console-made hunt never withdraws it, and drafts are kept apart until published.
@Suite struct HuntRevisionTests {
    typealias Backend = AccountStoreTests.Backend

    static let folder = TestSupport.packageRoot.appendingPathComponent("hunts").path

    /// The folder's files, each last changed at `modified`.
    static func sources(modified: Date) throws -> [HuntCatalog.Source] {
        try HuntSources.read(directory: folder).map {
            var source = $0
            source.modified = modified
            return source
        }
    }

    /// A hunt file with its name changed.
    static func renamed(_ source: HuntCatalog.Source, to name: String) throws -> [UInt8] {
        let text = String(decoding: source.bytes, as: UTF8.self)
        let old = try #require(text.range(of: "\"name\": \"Downtown & Fremont\""))
        return Array(text.replacingCharacters(in: old, with: "\"name\": \"\(name)\"").utf8)
    }

    @Test(arguments: Backend.allCases) func filesAndTheConsolePublishRevisions(_ backend: Backend)
        async throws
    {
        let store = try await AccountStoreTests().store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let sources = try Self.sources(modified: t0)
        let badges = try HuntSources.readBadges(directory: Self.folder)
        #expect(
            try await store.publishFiles(sources, badges: badges, force: false, at: t0).outcome != .unchanged)
        let first = try await store.latestRevisions()
        #expect(first.keys.sorted() == ["downtown-fremont", "strip-classics"])
        #expect(first.values.allSatisfy { $0.revision == 1 && $0.source == .files && $0.by == nil })

        // The console publishes a new revision of one hunt.
        let downtown = try #require(sources.first { $0.expectedID == "downtown-fremont" })
        let edited = try Self.renamed(downtown, to: "Old Vegas")
        let t1 = t0.addingTimeInterval(60)
        let second = try #require(
            try await store.publishFromConsole(huntID: "downtown-fremont", bytes: edited, by: "Mo", at: t1))
        #expect(
            second
                == HuntRevision(
                    huntID: "downtown-fremont", revision: 2, publishedAt: t1, by: "Mo", source: .console))
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Old Vegas")
        #expect(try await store.hunt(id: "strip-classics") != nil)
        // Publishing the same file again makes no revision.
        #expect(
            try await store.publishFromConsole(huntID: "downtown-fremont", bytes: edited, by: "Mo", at: t1)
                == second)

        // The folder, last changed before the console revision: refused, naming it; nothing changes.
        await #expect {
            _ = try await store.publishFiles(
                sources, badges: badges, force: false, at: t1.addingTimeInterval(5))
        } throws: { error in
            guard let conflicts = error as? HuntConflicts else { return false }
            return conflicts.conflicts.map(\.revision) == [second]
                && conflicts.description.contains("revision 2, published from the console by Mo")

        }
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Old Vegas")
        #expect(try await store.revisions(huntID: "downtown-fremont").map(\.revision) == [2, 1])

        // A file changed after the console revision is published over it.
        var newer = downtown
        newer.bytes = try Self.renamed(downtown, to: "Glitter Gulch")
        newer.modified = t1.addingTimeInterval(30)
        let others = sources.filter { $0.expectedID != "downtown-fremont" }
        _ = try await store.publishFiles(
            others + [newer], badges: badges, force: false, at: t1.addingTimeInterval(40))
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Glitter Gulch")
        #expect(try await store.latestRevisions()["downtown-fremont"]?.source == .files)
        #expect(try await store.latestRevisions()["strip-classics"]?.revision == 1)

        // The console again, then the stale folder with force: published over it.
        _ = try await store.publishFromConsole(
            huntID: "downtown-fremont", bytes: edited, by: "Mo", at: t1.addingTimeInterval(50))
        _ = try await store.publishFiles(sources, badges: badges, force: true, at: t1.addingTimeInterval(60))
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Downtown & Fremont")
        #expect(
            try await store.revisions(huntID: "downtown-fremont").map(\.source) == [
                .files, .console, .files, .console, .files,
            ])

        // A folder that lacks a hunt withdraws it when files made it, never when the console did.
        _ = try await store.publishFromConsole(
            huntID: "downtown-fremont", bytes: edited, by: "Mo", at: t1.addingTimeInterval(70))
        _ = try await store.publishFiles([], badges: nil, force: false, at: t1.addingTimeInterval(80))
        #expect(try await store.hunts().map(\.hunt.id) == ["downtown-fremont"])
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Old Vegas")
    }

    @Test(arguments: Backend.allCases) func draftsAreKeptApartUntilPublished(_ backend: Backend) async throws
    {
        let store = try await AccountStoreTests().store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let sources = try Self.sources(modified: t0)
        _ = try await store.publishFiles(sources, badges: nil, force: false, at: t0)
        #expect(try await store.draft(huntID: "downtown-fremont") == nil)
        let downtown = try #require(sources.first { $0.expectedID == "downtown-fremont" })
        let draft = HuntDraft(
            huntID: "downtown-fremont", bytes: try Self.renamed(downtown, to: "Draft"), savedAt: t0, by: "Mo")
        try await store.saveDraft(draft)
        var later = draft
        later.bytes = try Self.renamed(downtown, to: "Later draft")
        try await store.saveDraft(later)
        #expect(try await store.draft(huntID: "downtown-fremont") == later)
        #expect(try await store.draftIDs() == ["downtown-fremont"])
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Downtown & Fremont")
        _ = try await store.publishFromConsole(
            huntID: "downtown-fremont", bytes: later.bytes, by: "Mo", at: t0)
        #expect(try await store.draft(huntID: "downtown-fremont") == nil)
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Later draft")
        try await store.saveDraft(draft)
        #expect(try await store.dropDraft(huntID: "downtown-fremont"))
        #expect(try await !store.dropDraft(huntID: "downtown-fremont"))
        #expect(try await store.draftIDs().isEmpty)

        // An invalid file is refused with every problem, and nothing changes.
        var broken = Array(
            String(decoding: later.bytes, as: UTF8.self).replacingOccurrences(
                of: "\"points\": 80", with: "\"points\": \"many\""
            ).utf8)
        #expect(broken != later.bytes)
        await #expect(throws: HuntFileErrors.self) {
            _ = try await store.publishFromConsole(
                huntID: "downtown-fremont", bytes: broken, by: "Mo", at: t0)
        }
        broken = []
        #expect(try await store.hunt(id: "downtown-fremont")?.hunt.name == "Later draft")
        #expect(try await store.revisions(huntID: "downtown-fremont").count == 2)
    }
}
