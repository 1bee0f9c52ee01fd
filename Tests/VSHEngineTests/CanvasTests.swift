import Testing
import VSHEngine
import VSHPhoto

@Suite struct CanvasTests {
    /// A 2 x 1 image, red then blue, stored as a camera held sideways writes it.
    func sideways() -> RGBImage {
        var image = RGBImage(width: 2, height: 1)
        image.fill(x: 0, y: 0, width: 1, height: 1, color: (255, 0, 0))
        image.fill(x: 1, y: 0, width: 1, height: 1, color: (0, 0, 255))
        return image
    }

    func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * image.width + x) * 3
        return (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
    }

    @Test func orientationOneDrawsAsStored() async throws {
        var canvas = RGBImage(width: 2, height: 1)
        canvas.draw(sideways(), orientation: 1, x: 0, y: 0, width: 2, height: 1)
        #expect(pixel(canvas, 0, 0) == (255, 0, 0) && pixel(canvas, 1, 0) == (0, 0, 255))
    }

    @Test func orientationSixTurnsClockwise() async throws {
        // EXIF 6: the stored row's left end is the top of the upright picture.
        var canvas = RGBImage(width: 1, height: 2)
        canvas.draw(sideways(), orientation: 6, x: 0, y: 0, width: 1, height: 2)
        #expect(pixel(canvas, 0, 0) == (255, 0, 0) && pixel(canvas, 0, 1) == (0, 0, 255))
    }

    @Test func orientationThreeTurnsHalfway() async throws {
        var canvas = RGBImage(width: 2, height: 1)
        canvas.draw(sideways(), orientation: 3, x: 0, y: 0, width: 2, height: 1)
        #expect(pixel(canvas, 0, 0) == (0, 0, 255) && pixel(canvas, 1, 0) == (255, 0, 0))
    }

    @Test func orientationTwoMirrors() async throws {
        var canvas = RGBImage(width: 2, height: 1)
        canvas.draw(sideways(), orientation: 2, x: 0, y: 0, width: 2, height: 1)
        #expect(pixel(canvas, 0, 0) == (0, 0, 255))
    }

    @Test func textUsesTheBitmapFontAndFoldsAccents() async throws {
        #expect(BitmapFont.printable("Zoë's #1!") == Array("ZOE'S #1!"))
        #expect(BitmapFont.printable("東") == ["?"])
        var canvas = RGBImage(width: 20, height: 10)
        canvas.text("I", x: 0, y: 0, scale: 1, color: (255, 255, 255))
        // "I" is 0x0E on its first row: columns 1-3 lit.
        #expect(
            pixel(canvas, 0, 0) == (0, 0, 0) && pixel(canvas, 1, 0) == (255, 255, 255)
                && pixel(canvas, 3, 0) == (255, 255, 255))
    }
}
