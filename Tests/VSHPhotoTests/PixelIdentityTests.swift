import Foundation
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHPhoto

/// The pixel hashes behind `unique_photo` (issue 14): exact for copies stored differently,
/// near for edited copies, far for other pictures. Measured on the corpus's real photos and on
/// generated ones; the figures are in docs/anti-cheat.md.
@Suite struct PixelIdentityTests {
    static func identity(_ bytes: [UInt8]) throws -> Photo {
        try PhotoReader.photo(bytes: bytes, name: "photo")
    }

    /// The corpus photos a check-in accepts as whole JPEGs, at least 256 pixels on each side.
    static func corpusPhotos() throws -> [(name: String, bytes: [UInt8])] {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let folder = corpus.appendingPathComponent("photos")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().compactMap { name in
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            guard let photo = try? identity(bytes), let w = photo.metadata.width,
                let h = photo.metadata.height,
                min(w, h) >= 256
            else { return nil }
            return (name, bytes)
        }
    }

    /// Edits a cheater would make to pass another player's photo off as new.
    static func edits(of bytes: [UInt8], in folder: URL) throws -> [(String, [UInt8])] {
        // Upright first, as an editor shows and saves it (the copies carry no EXIF orientation).
        let orientation = PhotoReader.metadata(bytes: bytes)?.orientation ?? 1
        let full = try JPEGCodec.decode(bytes, covering: 1 << 20, 1 << 20).upright(orientation: orientation)
        func encoded(_ image: RGBImage, _ quality: Int, _ name: String) throws -> (String, [UInt8]) {
            let path = folder.appendingPathComponent("\(name).jpg").path
            try JPEGCodec.write(image, to: path, quality: quality)
            return (name, try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        }
        var out: [(String, [UInt8])] = []
        for quality in [95, 75, 50] { out.append(try encoded(full, quality, "quality \(quality)")) }
        let half = try JPEGCodec.decode(bytes, covering: (full.width + 1) / 2, (full.height + 1) / 2)
            .upright(orientation: orientation)
        out.append(try encoded(half, 85, "half size"))
        // 2 % off each side.
        let dx = full.width / 50
        let dy = full.height / 50
        var cropped = RGBImage(width: full.width - 2 * dx, height: full.height - 2 * dy)
        for y in 0..<cropped.height {
            let from = ((y + dy) * full.width + dx) * 3
            cropped.pixels.replaceSubrange(
                (y * cropped.width * 3)..<((y + 1) * cropped.width * 3),
                with: full.pixels[from..<(from + cropped.width * 3)])
        }
        out.append(try encoded(cropped, 85, "cropped 2%"))
        var brighter = full
        for i in brighter.pixels.indices {
            brighter.pixels[i] = UInt8(min(255, Int(brighter.pixels[i]) + 20))
        }
        out.append(try encoded(brighter, 85, "brighter"))
        return out
    }

    @Test(.needsCorpus) func editedCopiesOfRealPhotosAreNearAndOtherPhotosFar() throws {
        let photos = try Self.corpusPhotos()
        #expect(photos.count >= 5, "only \(photos.count) corpus photos of 256 px or more")
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        var editDistances: [Int] = []
        var hashes: [(String, UInt64, String)] = []
        for (name, bytes) in photos {
            let original = try Self.identity(bytes)
            let hash = try #require(original.perceptualHash)
            hashes.append((name, hash, try #require(original.pixelSHA256)))
            for (edit, edited) in try Self.edits(of: bytes, in: folder) {
                let copy = try Self.identity(edited)
                let bits = NearCopy.distance(hash, try #require(copy.perceptualHash))
                editDistances.append(bits)
                #expect(bits <= NearCopy.maxBits, "\(name), \(edit): \(bits) bits")
            }
        }
        // Distinct pictures (different pixels): how many pairs come within the threshold.
        var pairs = 0
        var near = 0
        var smallest = 64
        for i in hashes.indices {
            for j in hashes.indices where j > i && hashes[i].2 != hashes[j].2 {
                pairs += 1
                let bits = NearCopy.distance(hashes[i].1, hashes[j].1)
                smallest = min(smallest, bits)
                if bits <= NearCopy.maxBits { near += 1 }
            }
        }
        print(
            "pixel identity: \(photos.count) corpus photos, \(editDistances.count) edits, edit distances \(editDistances.sorted()); "
                + "\(pairs) pairs of distinct photos, \(near) within \(NearCopy.maxBits) bits, the closest \(smallest) bits"
        )
        #expect(pairs > 0)
        #expect(near == 0, "\(near) of \(pairs) distinct corpus pairs look like near copies")
    }

    /// Generated pictures (smooth random shapes on random backgrounds, with noise): no two of
    /// 300 come within the threshold.
    @Test func generatedPicturesAreFarApart() throws {
        var generator = SplitMix64(seed: 14)
        var hashes: [UInt64] = []
        for _ in 0..<300 {
            var image = RGBImage(
                width: 320, height: 240,
                fill: (
                    UInt8.random(in: 0...255, using: &generator),
                    UInt8.random(in: 0...255, using: &generator),
                    UInt8.random(in: 0...255, using: &generator)
                ))
            for _ in 0..<6 {
                let (cx, cy, r) = (
                    Int.random(in: 0..<320, using: &generator), Int.random(in: 0..<240, using: &generator),
                    Int.random(in: 20..<120, using: &generator)
                )
                let colour = (0..<3).map { _ in Int.random(in: 0...255, using: &generator) }
                for y in max(0, cy - r)..<min(240, cy + r) {
                    for x in max(0, cx - r)..<min(320, cx + r)
                    where (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r {
                        for c in 0..<3 { image.pixels[(y * 320 + x) * 3 + c] = UInt8(colour[c]) }
                    }
                }
            }
            for i in image.pixels.indices {
                image.pixels[i] = UInt8(
                    max(0, min(255, Int(image.pixels[i]) + Int.random(in: -8...8, using: &generator))))
            }
            hashes.append(PixelIdentity(decoded: image, orientation: 1).perceptualHash)
        }
        var near = 0
        var smallest = 64
        for i in hashes.indices {
            for j in hashes.indices where j > i {
                let bits = NearCopy.distance(hashes[i], hashes[j])
                smallest = min(smallest, bits)
                if bits <= NearCopy.maxBits { near += 1 }
            }
        }
        print(
            "pixel identity: 300 generated pictures, 44850 pairs, \(near) within \(NearCopy.maxBits) bits, the closest \(smallest) bits"
        )
        #expect(hashes.count == 300)
        #expect(near == 0)
    }

    /// Orientation: a picture turned by jpegtran with its orientation tag saying so is the same
    /// upright picture (the exact hash is taken after the EXIF orientation is applied).
    @Test func uprightIsOrientationAware() {
        var image = RGBImage(width: 3, height: 2)
        for i in image.pixels.indices { image.pixels[i] = UInt8(i * 10) }
        let turned = image.upright(orientation: 6)
        #expect(turned.width == 2 && turned.height == 3)
        // Turning back (8 undoes 6) gives the original.
        #expect(turned.upright(orientation: 8).pixels == image.pixels)
        #expect(image.upright(orientation: 3).upright(orientation: 3).pixels == image.pixels)
        #expect(
            PixelIdentity(decoded: turned, orientation: 8).sha256
                == PixelIdentity(decoded: image, orientation: 1).sha256)
    }
}
