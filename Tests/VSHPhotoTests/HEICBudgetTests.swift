import Foundation
import Testing
import VSHCore
import VSHPhoto
import VSHTestSupport

/// HEIC decoding has a pixel budget as JPEG decoding has (security round 3): a grid is counted
/// tile by tile, as often as it names each tile, before libheif is asked to decode anything.
@Suite struct HEICBudgetTests {
    static let bomb = TestSupport.packageRoot.appendingPathComponent("Fixtures/hostile/heic-grid-bomb.heic")
        .path

    static func bombBytes() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: bomb)))
    }

    /// What collages, check-in photos shown to moderators and avatars decode through: refused.
    @Test(arguments: [64, 256, 480]) func theGridBombIsRefusedForEverySize(side: Int) throws {
        let bytes = try Self.bombBytes()
        #expect(PhotoDecoder.isPhoto(bytes))
        do {
            _ = try PhotoDecoder.decode(bytes, covering: side, side)
            Issue.record("the grid bomb was decoded")
        } catch {
            // 1,521 tiles of 512 x 512 plus the 19,968 x 19,968 canvas.
            #expect(
                "\(error)"
                    == "decoding it would take 797 megapixels (each tile its grid names, as often as it names it),"
                    + " more than the 50-megapixel budget")
        }
    }

    /// A check-in's photo: refused as unreadable, naming the budget.
    @Test func theGridBombIsNoCheckInPhoto() throws {
        do {
            _ = try PhotoReader.photo(bytes: try Self.bombBytes(), name: "bomb.heic")
            Issue.record("the grid bomb was read as a photo")
        } catch {
            #expect("\(error)".contains("more than the 50-megapixel budget"), "\(error)")
        }
    }

    /// Its header (what `vsh exif` shows) is still read: nothing is decoded for it.
    @Test func theGridBombsHeaderIsRead() throws {
        let metadata = try #require(PhotoReader.metadata(bytes: try Self.bombBytes()))
        #expect(metadata.width == 19_968 && metadata.height == 19_968)
    }

    /// A real HEIC (heif-enc of a fixture) decodes within the budget, averaged down to cover the size.
    @Test func aRealHEICStillDecodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vsh-heic-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("sign.heic").path
        let jpeg = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path
        let made = try TestSupport.run("/usr/bin/heif-enc", ["-q", "80", jpeg, "-o", out])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let image = try PhotoDecoder.decode(bytes, covering: 32, 32)
        #expect(image.width >= 32 && image.height >= 32)
        #expect(image.pixels.count == image.width * image.height * 3)
        _ = try PhotoReader.photo(bytes: bytes, name: out)
    }
}
