import Foundation
import Testing
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

/// The file photo store names files by their SHA-256 only: nothing a player sends becomes a path.
@Suite struct FilePhotoStoreTests {
    @Test func photosAreStoredUnderTheirHashAndNothingElse() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let photos = FilePhotoStore.beside(databasePath: folder.appendingPathComponent("vsh.sqlite").path)
        let bytes: [UInt8] = Array("not really a jpeg".utf8)
        let sha = SHA256.hex(bytes)
        let key = try photos.put(bytes, sha256: sha)
        #expect(key == "\(sha.prefix(2))/\(sha).jpg")
        #expect(FileManager.default.contents(atPath: photos.absolutePath(key)) == Data(bytes))
        #expect(try photos.get(key) == bytes)
        #expect(photos.exists(key))
        // Storing again is a no-op, and leaves no temporary file behind.
        #expect(try photos.put(bytes, sha256: sha) == key)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: photos.absolutePath(String(sha.prefix(2))))
                == ["\(sha).jpg"])
        for hostile in [
            "../../../../tmp/evil", "/etc/passwd", String(repeating: "a", count: 63) + "/",
            String(repeating: "g", count: 64), String(repeating: "A", count: 64), "",
        ] {
            #expect(throws: PhotoStoreError.self, "\(hostile)") { try photos.put(bytes, sha256: hostile) }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.jpg"))
    }

    /// `get` and `exists` take only keys `put` makes: a path cannot be smuggled in as a key.
    @Test func onlyKeysNameFiles() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let photos = FilePhotoStore(root: folder.path)
        try Data("secret".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        for key in [
            "notes.txt", "../notes.txt", "/etc/passwd", "ab/../../notes.txt",
            "ab/" + String(repeating: "a", count: 64) + ".jpg",
        ] {
            #expect(try photos.get(key) == nil, "\(key)")
            #expect(!photos.exists(key), "\(key)")
        }
    }
}
