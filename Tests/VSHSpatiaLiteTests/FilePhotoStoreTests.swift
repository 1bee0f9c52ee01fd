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

    /// A server's durable writes wait for the disk on threads of their own, many at once: the same
    /// picture sent by many requests together is one file, each picture is whole under its key, and
    /// no temporary file is left. A hostile hash is refused on that path too.
    @Test func durableWritesAtOnceFromManyRequests() async throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let photos: any PhotoStore = FilePhotoStore(root: folder.path)
        let pictures = (0..<8).map { n in
            [UInt8]((0..<50_000).map { UInt8(truncatingIfNeeded: $0 * (n + 3)) })
        }
        let keys = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for request in 0..<64 {
                group.addTask {
                    let picture = pictures[request % pictures.count]
                    return (
                        request % pictures.count, try await photos.put(picture, sha256: SHA256.hex(picture))
                    )
                }
            }
            var keys: [Int: Set<String>] = [:]
            for try await (picture, key) in group { keys[picture, default: []].insert(key) }
            return keys
        }
        #expect(keys.count == pictures.count)
        for (n, picture) in pictures.enumerated() {
            let key = try #require(keys[n]?.first)
            #expect(keys[n]?.count == 1)
            #expect(key == "\(SHA256.hex(picture).prefix(2))/\(SHA256.hex(picture)).jpg")
            #expect(try await photos.get(key) == picture)
        }
        let left = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".jpg") || $0.contains(".incoming-")
        }
        #expect(left.sorted() == keys.values.flatMap { $0 }.sorted())
        await #expect(throws: PhotoStoreError.self) {
            try await photos.put(pictures[0], sha256: "../../etc/passwd")
        }
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
