import Foundation
import Testing
import VSHTestSupport

@testable import VSHCore

@Suite struct RFC3339Tests {
    @Test func parsesOffsetsFractionsAndZulu() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(
            RFC3339.parse("2026-11-21T11:30:00.25-08:00") == Date(timeIntervalSince1970: 1_795_289_400.25))
        #expect(RFC3339.parse("2026-11-21 19:30:00z") == Date(timeIntervalSince1970: 1_795_289_400))
        #expect(RFC3339.parse("2024-02-29T12:00:00+05:30") == Date(timeIntervalSince1970: 1_709_188_200))
    }

    @Test func refusesImpossibleOrIncompleteTimes() {
        for text in [
            "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T23:59:60Z",
            "2026-11-21T10:00:00", "2026-11-21", "2026-11-21T10:00:00.Z", "26-11-21T10:00:00Z", "",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }

    @Test func formatsUTCWithMillisecondsOnlyWhenNeeded() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_289_400)) == "2026-11-21T19:30:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_289_400.25)) == "2026-11-21T19:30:00.250Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }
}

@Suite struct SHA256Tests {
    // FIPS 180-4 example vectors.
    @Test func matchesTheStandardVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func streamingInPiecesEqualsOneShot() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        var index = 0
        for size in [1, 63, 64, 65, 1000, 3] where index < bytes.count {
            hasher.update(bytes[index..<min(bytes.count, index + size)])
            index += size
        }
        hasher.update(bytes[index...])
        #expect(hasher.finalizeHex() == SHA256.hex(bytes))
    }

    /// Every length from 0 to 300 bytes (every padding case, one to five blocks) agrees with
    /// `sha256sum`, and large random inputs fed in random pieces agree with one piece.
    @Test func everyPaddingCaseAndAnyPiecesAgreeWithSha256sum() throws {
        var generator = SplitMix64(seed: 18)
        let bytes = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let folder = try TestSupport.temporaryDirectory("vsh-sha-lengths")
        let files = try (0...300).map { length in
            let file = folder.appendingPathComponent("\(length)")
            try Data(bytes[0..<length]).write(to: file)
            return file.path
        }
        let sums = try TestSupport.run("/usr/bin/env", ["sha256sum"] + files).stdout.split(separator: "\n")
        #expect(sums.count == 301)
        for (length, line) in zip(0...300, sums) {
            #expect(SHA256.hex(bytes[0..<length]) == String(line.prefix(64)), "length \(length)")
        }
        for _ in 0..<20 {
            var pieces = SHA256()
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + Int(generator.next() % 20_000))
                pieces.update(bytes[index..<end])
                index = end
            }
            #expect(pieces.finalizeHex() == SHA256.hex(bytes))
        }
    }

    @Test func agreesWithSha256sumOnAHuntFile() throws {
        let url = TestPaths.strip
        let bytes = try [UInt8](Data(contentsOf: url))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.hasPrefix(SHA256.hex(bytes) + " "))
    }
}

/// Scoring's local clock (for badges of the hour and the day) against Foundation's Calendar.
@Suite struct LocalClockTests {
    @Test func theLocalClockAgreesWithCalendarAcrossZonesAndDSTChanges() throws {
        let zones = try [
            "UTC", "America/Los_Angeles", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe",
            "Pacific/Chatham", "America/St_Johns",
        ].map { try #require(TimeZone(identifier: $0)) }
        var generator = SystemRandomNumberGenerator()
        // Random instants 1901-2100, plus each side of 2026's DST changes in Las Vegas and London.
        var instants = (0..<3_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -2_177_452_800...4_102_444_800, using: &generator))
        }
        for change in ["2026-03-08T10:00:00Z", "2026-11-01T09:00:00Z", "2026-03-29T01:00:00Z"] {
            let at = try #require(RFC3339.parse(change))
            instants += stride(from: -7_200.0, through: 7_200, by: 599.5).map { at.addingTimeInterval($0) }
        }
        #expect(instants.count > 3_000)
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            for instant in instants {
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
                let day = RFC3339.daysFromCivil(parts.year!, parts.month!, parts.day!)
                let clock = Scoring.localClock(instant, in: zone)
                #expect(
                    clock.day == day && clock.minuteOfDay == parts.hour! * 60 + parts.minute!,
                    "\(zone.identifier) \(instant)")
            }
        }
    }

    /// `RFC3339.format` writes its bytes itself: the same text as the pieces it joined before
    /// (each number a padded string), for any time from year 0 to 9999, and beyond.
    @Test func formattingAsBytesGivesWhatThePiecesGave() {
        func pieces(_ date: Date) -> String {
            let (y, mo, d, h, mi, s, millis) = RFC3339.fields(of: date)
            return RFC3339.joined(y, mo, d, h, mi, s, millis)
        }
        var generator = SystemRandomNumberGenerator()
        let edges: [Double] = [
            0, -0.0005, 0.9995, 253_402_300_799.999, 253_402_300_800, -62_167_219_200, -62_167_219_201,
        ]
        var dates = edges.map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<50_000 {
            // Seconds across years -100 to 10100, with whole, millisecond and finer fractions.
            let whole = Double(Int64.random(in: -65_000_000_000...256_600_000_000, using: &generator))
            let fraction = [
                0, Double(Int.random(in: 0...999, using: &generator)) / 1000, Double.random(in: 0..<1),
            ]
            dates.append(Date(timeIntervalSince1970: whole + fraction.randomElement(using: &generator)!))
        }
        for date in dates {
            #expect(RFC3339.format(date) == pieces(date), "\(date.timeIntervalSince1970)")
        }
        #expect(dates.count == 50_007)
    }
}
