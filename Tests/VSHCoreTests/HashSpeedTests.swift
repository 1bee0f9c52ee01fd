import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// SHA-256 over what vsh hashes (16 MiB in photo-sized and large pieces), held to `sha256sum`; the
/// rate is printed, never asserted (docs/speed.md: the figure that chose swift-crypto's SHA-256).
@Suite struct HashSpeedTests {
    @Test func sha256KeepsUpWithPhotosAndAgreesWithSha256sum() throws {
        var random = SplitMix64(seed: 7)
        let bytes = (0..<(16 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let file = try TestSupport.temporaryDirectory("vsh-hash").appendingPathComponent("bytes")
        try Data(bytes).write(to: file)
        let sum = try TestSupport.run("/usr/bin/env", ["sha256sum", file.path])
        let expected = String(sum.stdout.prefix(64))

        let clock = ContinuousClock()
        var whole = ""
        let large = clock.measure {
            var hasher = SHA256()
            for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                hasher.update(bytes[start..<min(start + (1 << 20), bytes.count)])
            }
            whole = hasher.finalizeHex()
        }
        #expect(whole == expected)
        var last = ""
        let photos = clock.measure {
            for start in stride(from: 0, to: bytes.count, by: 100_000) {
                last = SHA256.hex(bytes[start..<min(start + 100_000, bytes.count)])
            }
        }
        #expect(last == SHA256.hex(Array(bytes[(bytes.count / 100_000 * 100_000)...])))
        func rate(_ d: Duration) -> String {
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return String(format: "%.0f MB/s", 16 * 1.048576 / seconds)
        }
        print("SHA-256: 16 MiB in 1 MiB pieces \(rate(large)); in 100 kB photos \(rate(photos))")
    }
}
