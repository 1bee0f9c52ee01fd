import Foundation
import Testing
import VSHTestSupport

@testable import VSHCore

/// Issue 18: decimal numbers (fixes, GPX, stored GeoJSON) read by Clinger's fast path where it is
/// exact give `strtod`'s value bit for bit: on 200,000 random decimals of 1 to 20 digits with the
/// point anywhere, signs, leading zeros, negative zero, exponents and the edges of the path
/// (15 and 16 digits, 22 and 23 after the point); the rest go to `strtod` itself.
@Suite struct DecimalNumberTests {
    static func strtodValue(_ text: String) -> Double? {
        text.withCString { start in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            return end == UnsafeMutablePointer(mutating: start) + text.utf8.count ? value : nil
        }
    }

    @Test func theFastPathGivesStrtodsValueBitForBit() {
        var random = SplitMix64(seed: 1990)
        var texts = [
            "0", "-0", "-0.0", "+1.5", "5.", ".5", "36.2339094", "-115.0156705", "999999999999999",
            "9999999999999999", "0.0000000000000000000001", "0.00000000000000000000001", "1e3", "-2.5E-3",
            "123456789012345.6", "1234567890.12345", "0.1", "0.2", "0.3", "9007199254740993",
        ]
        for _ in 0..<200_000 {
            let digits = 1 + Int(random.next() % 20)
            var text = (0..<digits).map { _ in String(random.next() % 10) }.joined()
            if random.next() % 4 != 0 {
                let point = Int(random.next() % UInt64(digits + 1))
                text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            }
            switch random.next() % 8 {
            case 0: text = "-" + text
            case 1: text = "+" + text
            case 2: text += "e\(Int(random.next() % 40) - 20)"
            default: break
            }
            texts.append(text)
        }
        var fast = 0
        for text in texts {
            let expected = Self.strtodValue(text)
            let got = Array(text.utf8).withUnsafeBufferPointer { DecimalNumber.parse($0) }
            #expect(got?.bitPattern == expected?.bitPattern, "\(text)")
            if Array(text.utf8).withUnsafeBufferPointer({ DecimalNumber.exactlyRounded($0) }) != nil {
                fast += 1
            }
        }
        #expect(fast > 80_000, "\(fast) by the fast path")
    }
}
