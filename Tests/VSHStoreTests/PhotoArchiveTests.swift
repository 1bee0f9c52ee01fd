import Foundation
import Testing
import VSHCore
import VSHStore
import VSHTestSupport

/// The photo archive names files by their SHA-256 only: nothing a player sends becomes a path.
@Suite struct PhotoArchiveTests {
    @Test func photosAreStoredUnderTheirHashAndNothingElse() throws {
        let folder = try TestSupport.temporaryDirectory()
        let archive = PhotoArchive(databasePath: folder.appendingPathComponent("vsh.sqlite").path)
        let bytes: [UInt8] = Array("not really a jpeg".utf8)
        let sha = SHA256.hex(bytes)
        let relative = try archive.store(bytes, sha256: sha)
        #expect(relative == "\(sha.prefix(2))/\(sha).jpg")
        #expect(FileManager.default.contents(atPath: archive.absolutePath(relative)) == Data(bytes))
        // Storing again is a no-op, and leaves no temporary file behind.
        #expect(try archive.store(bytes, sha256: sha) == relative)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: archive.absolutePath(String(sha.prefix(2))))
                == ["\(sha).jpg"])
        for hostile in [
            "../../../../tmp/evil", "/etc/passwd", String(repeating: "a", count: 63) + "/",
            String(repeating: "g", count: 64), "",
        ] {
            #expect(throws: InputError.self, "\(hostile)") { try archive.store(bytes, sha256: hostile) }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.jpg"))
    }
}
