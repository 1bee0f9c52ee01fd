import Foundation
public import VSHPhoto

/// Drawing on an RGB image: rectangles, scaled and turned photos, and text in
/// a 5x7 bitmap font (vsh carries no font library; stop names are printed in
/// capitals, accents folded, other characters as '?').
extension RGBImage {
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, color: (UInt8, UInt8, UInt8)) {
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) {
                let i = (row * width + column) * 3
                pixels[i] = color.0
                pixels[i + 1] = color.1
                pixels[i + 2] = color.2
            }
        }
    }

    /// Draws `source` into the box, turned upright by its EXIF orientation and
    /// scaled to cover the box (cropping the overflow), by nearest pixel.
    public mutating func draw(
        _ source: RGBImage, orientation: Int, x: Int, y: Int, width w: Int, height h: Int
    ) {
        let turned = orientation >= 5  // 5-8 swap width and height
        let sw = Double(turned ? source.height : source.width)
        let sh = Double(turned ? source.width : source.height)
        let scale = max(Double(w) / sw, Double(h) / sh)
        let offsetX = (sw * scale - Double(w)) / 2
        let offsetY = (sh * scale - Double(h)) / 2
        for row in 0..<h {
            for column in 0..<w {
                // Upright coordinates in the source's displayed frame...
                let u = min(sw - 1, (Double(column) + offsetX) / scale)
                let v = min(sh - 1, (Double(row) + offsetY) / scale)
                // ...mapped back to the stored pixels (EXIF 2.32 Orientation).
                let (px, py): (Double, Double)
                switch orientation {
                case 2: (px, py) = (sw - 1 - u, v)
                case 3: (px, py) = (sw - 1 - u, sh - 1 - v)
                case 4: (px, py) = (u, sh - 1 - v)
                case 5: (px, py) = (v, u)
                case 6: (px, py) = (v, sw - 1 - u)
                case 7: (px, py) = (sh - 1 - v, sw - 1 - u)
                case 8: (px, py) = (sh - 1 - v, u)
                default: (px, py) = (u, v)
                }
                let si = (Int(py) * source.width + Int(px)) * 3
                let di = ((y + row) * width + (x + column)) * 3
                guard si >= 0, si + 2 < source.pixels.count, di >= 0, di + 2 < pixels.count else { continue }
                pixels[di] = source.pixels[si]
                pixels[di + 1] = source.pixels[si + 1]
                pixels[di + 2] = source.pixels[si + 2]
            }
        }
    }

    /// Text at (x, y), each font pixel a `scale` x `scale` square; clipped at `maxWidth`.
    public mutating func text(
        _ string: String, x: Int, y: Int, scale: Int = 2, maxWidth: Int = .max, color: (UInt8, UInt8, UInt8)
    ) {
        var cursor = x
        for character in BitmapFont.printable(string) {
            let advance = 6 * scale
            if cursor + advance - x > maxWidth { break }
            let rows = BitmapFont.glyph(character)
            for (r, bits) in rows.enumerated() {
                for c in 0..<5 where bits & (1 << (4 - c)) != 0 {
                    fill(x: cursor + c * scale, y: y + r * scale, width: scale, height: scale, color: color)
                }
            }
            cursor += advance
        }
    }
}

/// A 5x7 pixel font for capitals, digits and common punctuation.
public enum BitmapFont {
    /// The characters the font can draw: capitals, accents folded, others as '?'.
    public static func printable(_ text: String) -> [Character] {
        text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased().map {
            glyphs[$0] == nil ? "?" : $0
        }
    }

    static func glyph(_ character: Character) -> [UInt8] { glyphs[character] ?? glyphs["?"]! }

    static let glyphs: [Character: [UInt8]] = [
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        " ": [0, 0, 0, 0, 0, 0, 0], ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ",": [0, 0, 0, 0, 0x0C, 0x04, 0x08],
        "-": [0, 0, 0, 0x1F, 0, 0, 0], "'": [0x0C, 0x04, 0x08, 0, 0, 0, 0],
        "&": [0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D],
        "!": [0x04, 0x04, 0x04, 0x04, 0x04, 0, 0x04], ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0],
        "/": [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
        "?": [0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04], "(": [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ")": [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08], "#": [0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A],
        "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
    ]
}
