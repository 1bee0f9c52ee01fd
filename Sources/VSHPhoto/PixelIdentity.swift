import Foundation
import VSHCore

/// What a photo's decoded pixels say of it, for `unique_photo`: an exact hash and a
/// perceptual hash, both of the image drawn upright (its EXIF orientation applied).
///
/// The image is decoded by libjpeg's DCT scaling at the smallest of 1/8, 1/4, 1/2 or full
/// size that still covers 64 x 64 (a 12-megapixel photo at 1/8: 500 x 375, its blocks'
/// average colours), so a decode costs little, and what is hashed is what a viewer sees:
/// rewriting the file losslessly (`jpegtran -optimize`, a no-op restart interval, other
/// Huffman tables, EXIF rewritten, turned by jpegtran with its orientation tag reset) leaves
/// both hashes as they were.
public struct PixelIdentity: Sendable, Equatable {
    /// SHA-256 of the upright decoded image (its width, height and RGB bytes): equal for
    /// files that differ only in how the same pixels are stored.
    public var sha256: String
    /// A 64-bit DCT perceptual hash (pHash): the upright image in grey, averaged down to
    /// 32 x 32, its 2-D DCT, and one bit for each of the 8 x 8 lowest frequencies but the
    /// first row and column (the overall brightness and the plain left-right and top-bottom
    /// gradients): set when the coefficient is above their median. Re-saving at another
    /// quality, scaling, a small crop or a change of brightness moves few bits; another
    /// picture moves about half (`NearCopy.maxBits` says how few make a near copy).
    public var perceptualHash: UInt64

    /// The identity of an image as decoded (before orientation) and its EXIF orientation (1-8).
    public init(decoded image: RGBImage, orientation: Int) {
        let upright = image.upright(orientation: orientation)
        var hash = SHA256()
        var header: [UInt8] = []
        for value in [upright.width, upright.height] {
            for shift in stride(from: 24, through: 0, by: -8) {
                header.append(UInt8((value >> shift) & 0xFF))
            }
        }
        hash.update(header[...])
        hash.update(upright.pixels[...])
        sha256 = hash.finalizeHex()
        perceptualHash = Self.perceptualHash(of: upright)
    }

    /// The DCT's cosines, cos((2x + 1) u π / 64) for u < 9 and x < 32: made once, not for
    /// each photo (288 calls of `cos` a photo showed in a batch's profile).
    static let cosines: [[Double]] = (0..<9).map { u in
        (0..<32).map { x in cos((2 * Double(x) + 1) * Double(u) * .pi / (2 * 32.0)) }
    }

    /// The DCT hash of an upright image.
    static func perceptualHash(of image: RGBImage) -> UInt64 {
        let side = 32
        let grey = image.greyAveraged(to: side)
        // 2-D DCT-II of the 32 x 32 grey image, only the 9 x 9 lowest frequencies needed.
        let cosines = Self.cosines
        var rows = [[Double]](repeating: [Double](repeating: 0, count: 9), count: side)  // [y][u]
        for y in 0..<side {
            for u in 0..<9 {
                var sum = 0.0
                for x in 0..<side { sum += grey[y * side + x] * cosines[u][x] }
                rows[y][u] = sum
            }
        }
        var coefficients: [Double] = []
        coefficients.reserveCapacity(64)
        for v in 1..<9 {
            for u in 1..<9 {
                var sum = 0.0
                for y in 0..<side { sum += rows[y][u] * cosines[v][y] }
                coefficients.append(sum)
            }
        }
        let median = coefficients.sorted()[31...32].reduce(0, +) / 2
        var bits: UInt64 = 0
        for (index, value) in coefficients.enumerated() where value > median { bits |= 1 << UInt64(index) }
        return bits
    }
}

extension RGBImage {
    /// The image turned as its EXIF orientation says (1: as stored; 2-8: mirrored and/or
    /// turned), so that the top row is the top of the scene.
    public func upright(orientation: Int) -> RGBImage {
        guard (2...8).contains(orientation) else { return self }
        let turned = orientation >= 5
        let (w, h) = turned ? (height, width) : (width, height)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy) = Self.stored(
                    x: Double(x), y: Double(y), orientation: orientation, uprightWidth: Double(w),
                    uprightHeight: Double(h))
                let from = (Int(sy) * width + Int(sx)) * 3
                let to = (y * w + x) * 3
                out[to] = pixels[from]
                out[to + 1] = pixels[from + 1]
                out[to + 2] = pixels[from + 2]
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// Where the pixel shown at (x, y) of the upright picture (`uprightWidth` x `uprightHeight`)
    /// is stored, for an EXIF orientation (EXIF 2.32, Orientation; 1 or unknown: as stored).
    public static func stored(
        x u: Double, y v: Double, orientation: Int, uprightWidth sw: Double, uprightHeight sh: Double
    ) -> (x: Double, y: Double) {
        switch orientation {
        case 2: return (sw - 1 - u, v)
        case 3: return (sw - 1 - u, sh - 1 - v)
        case 4: return (u, sh - 1 - v)
        case 5: return (v, u)
        case 6: return (v, sw - 1 - u)
        case 7: return (sh - 1 - v, sw - 1 - u)
        case 8: return (sh - 1 - v, u)
        default: return (u, v)
        }
    }

    /// Luma (BT.601) averaged over a `side` x `side` grid of equal areas (each output cell
    /// the mean of the input pixels whose centres fall in it; a smaller image is sampled).
    func greyAveraged(to side: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: side * side)
        var counts = [Int](repeating: 0, count: side * side)
        // Each column's cell once (not a division a pixel); the same sums in the same order.
        let cellOfColumn = (0..<width).map { min(side - 1, $0 * side / max(1, width)) }
        pixels.withUnsafeBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                counts.withUnsafeMutableBufferPointer { counts in
                    for y in 0..<height {
                        let row = min(side - 1, y * side / max(1, height)) * side
                        var i = y * width * 3
                        for x in 0..<width {
                            let luma =
                                0.299 * Double(pixels[i]) + 0.587 * Double(pixels[i + 1]) + 0.114
                                * Double(pixels[i + 2])
                            sums[row + cellOfColumn[x]] += luma
                            counts[row + cellOfColumn[x]] += 1
                            i += 3
                        }
                    }
                }
            }
        }
        // An image smaller than the grid leaves cells empty: each takes its nearest pixel.
        for cy in 0..<side {
            for cx in 0..<side where counts[cy * side + cx] == 0 {
                let x = min(width - 1, cx * width / side)
                let y = min(height - 1, cy * height / side)
                let i = (y * width + x) * 3
                sums[cy * side + cx] =
                    0.299 * Double(pixels[i]) + 0.587 * Double(pixels[i + 1]) + 0.114 * Double(pixels[i + 2])
                counts[cy * side + cx] = 1
            }
        }
        return (0..<(side * side)).map { sums[$0] / Double(counts[$0]) }
    }
}
