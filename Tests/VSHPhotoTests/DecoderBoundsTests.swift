import Foundation
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHPhoto

/// The work a hostile JPEG can ask of the readers is bounded by what it declares and by
/// fixed limits, not by how cleverly it is built (issue 15).
@Suite struct DecoderBoundsTests {
    /// A valid progressive greyscale JPEG of `width` x `height` whose every scan is a DC
    /// first scan (all coefficients zero): `scans` passes over the image for a decoder.
    static func progressive(width: Int, height: Int, scans: Int, data: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xDB, 0x00, 67, 0x00] + [UInt8](repeating: 1, count: 64)  // DQT: all ones
        bytes += [0xFF, 0xC2, 0x00, 11, 8, UInt8(height >> 8), UInt8(height & 0xFF)]  // SOF2
        bytes += [UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0]
        // DHT: DC table 0 with one code of length 1 for category 0 (a difference of zero).
        bytes += [0xFF, 0xC4, 0x00, 20, 0x00, 1] + [UInt8](repeating: 0, count: 15) + [0]
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for _ in 0..<scans {
            bytes += [0xFF, 0xDA, 0x00, 8, 1, 1, 0x00, 0, 0, 0x00]  // SOS: DC first scan
            if data { bytes += [UInt8](repeating: 0, count: (blocks + 7) / 8) }  // a '0' bit a block
        }
        return bytes + [0xFF, 0xD9]
    }

    @Test func aFewScansDecode() throws {
        let image = try JPEGCodec.decode(
            Self.progressive(width: 256, height: 128, scans: 12), covering: 32, 16)
        #expect(image.width == 32 && image.height == 16)
        #expect(Set(image.pixels) == [128])  // every coefficient zero: mid grey
    }

    @Test func aDecodeStopsPastTheScanLimit() throws {
        let bytes = Self.progressive(width: 256, height: 128, scans: JPEGCodec.maxScans + 1)
        #expect(throws: JPEGCodecError.decode("more than 100 scans (a camera writes at most a few dozen)")) {
            _ = try JPEGCodec.decode(bytes, covering: 32, 16)
        }
        // At the limit it still decodes.
        let atLimit = Self.progressive(width: 256, height: 128, scans: JPEGCodec.maxScans)
        #expect(try JPEGCodec.decode(atLimit, covering: 32, 16).width == 32)
    }

    @Test func aProgressiveImageTooLargeForTheMemoryLimitIsRefusedBeforeItsScans() throws {
        // 20000 x 20000 greyscale: 800 MB of coefficients, from a file of 50 KB a scan.
        let bytes = Self.progressive(width: 20000, height: 20000, scans: 1)
        #expect(bytes.count < 6_300_000)
        do {
            _ = try JPEGCodec.decode(bytes, covering: 320, 240)
            Issue.record("a 20000 x 20000 progressive image decoded")
        } catch let error as JPEGCodecError {
            #expect("\(error)".hasPrefix("decoding it would take more than 512 MiB"))
        }
    }

    @Test func aDeclaredSizeBeyondAnyCameraIsRefusedUnread() throws {
        let bytes = Self.progressive(width: 65000, height: 65000, scans: 1, data: false)
        #expect(throws: JPEGCodecError.decode("it declares 65000 x 65000 pixels, more than any camera makes"))
        {
            _ = try JPEGCodec.decode(bytes, covering: 320, 240)
        }
    }

    @Test func fillBytesAreSkippedAWindowAtATime() throws {
        // 1 MiB of 0xFF fill before a COM marker, then a frame and a scan.
        var bytes: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1 << 20)
        bytes += [0xFE, 0x00, 0x04, 0x41, 0x42]
        bytes += Array(Self.progressive(width: 16, height: 16, scans: 1).dropFirst(2))
        var reads = 0
        let layout = JPEGLayout.walk(size: bytes.count, throughScans: true) { offset, count in
            reads += 1
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
        #expect(layout.problem == nil && layout.sawScan)
        #expect(layout.width == 16 && layout.height == 16)
        #expect(reads > 0 && reads < 100, "\(reads) reads for 1 MiB of fill bytes")
    }

    @Test func metadataReadsAFileThroughAWindow() throws {
        // 100,000 tiny COM segments before the frame: a read each used to be a system call each.
        var bytes: [UInt8] = [0xFF, 0xD8]
        for _ in 0..<100_000 { bytes += [0xFF, 0xFE, 0x00, 0x03, 0x20] }
        bytes += Array(Self.progressive(width: 640, height: 480, scans: 1).dropFirst(2))
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("segments.jpg").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let file = try OpenFile(path: path)
        let buffered = BufferedRead(file)
        var windows = 0
        let layout = JPEGLayout.walk(size: file.size, throughScans: false) { offset, count in
            let before = buffered.windowReads
            defer { windows += buffered.windowReads - before }
            return buffered.read(offset, count)
        }
        #expect(layout.width == 640 && layout.height == 480)
        #expect(windows > 0 && windows < 20, "\(windows) file reads for \(bytes.count) bytes")
        let metadata = try PhotoReader.metadata(path: path)
        #expect(metadata.width == 640 && metadata.height == 480)
    }
}
