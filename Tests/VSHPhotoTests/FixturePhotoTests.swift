import Foundation
import Testing
import VSHCore
import VSHPhoto
import VSHTestSupport

func fixture(_ name: String) -> String {
    TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/\(name)").path
}

@Suite struct FixturePhotoTests {
    @Test func readsEveryFieldOfAPhoneLikePhoto() throws {
        let m = try PhotoReader.metadata(path: fixture("sign-inside.jpg"))
        #expect(m.latitude == 36.082014 && m.longitude == -115.172734)
        #expect(m.altitudeMeters == 659.5)
        #expect(m.accuracyMeters == 5)
        #expect(m.gpsTime == RFC3339.parse("2026-11-21T19:30:00Z"))
        #expect(m.takenAtText == "2026-11-21T11:30:00.250-08:00")
        #expect(m.utcOffsetSeconds == -28_800)
        #expect(m.make == "Apple" && m.model == "iPhone 15" && m.software == "17.1")
        #expect(m.width == 96 && m.height == 64)
    }

    @Test func zeroOverZeroSecondsStillGiveThePosition() throws {
        let m = try PhotoReader.metadata(path: fixture("edge-zero-seconds.jpg"))
        #expect(abs(m.latitude! - 36.082014) < 1e-9)
        #expect(abs(m.longitude! - -115.172734) < 1e-9)
    }

    @Test func zeroOverZeroDegreesMeanNoPosition() throws {
        let m = try PhotoReader.metadata(path: fixture("edge-zero-degrees.jpg"))
        #expect(m.position == nil)
        #expect(m.positionNote == "GPS latitude has a division by zero")
    }

    @Test func aMissingRefLeavesTheHemisphereUnknown() throws {
        let m = try PhotoReader.metadata(path: fixture("edge-no-ref.jpg"))
        #expect(m.position == nil)
        #expect(m.positionNote == "GPS latitude has no N/S reference")
        let signed = try PhotoReader.metadata(path: fixture("edge-signed-no-ref.jpg"))
        #expect(abs(signed.longitude! - -(115 + 10.0 / 60 + 22.4426 / 3600)) < 1e-9)
    }

    @Test func altitudeBelowSeaLevelFractionalGPSTimeAndOffsets() throws {
        let m = try PhotoReader.metadata(path: fixture("edge-below-sea.jpg"))
        #expect(m.altitudeMeters == -12.5)
        #expect(m.gpsTime == RFC3339.parse("2026-11-21T11:30:00.5Z"))
        #expect(m.takenAtText == "2026-11-21T04:30:00.125-07:00")
        #expect(
            m.takenAt(inTimeZone: TimeZone(identifier: "America/Los_Angeles")!)
                == RFC3339.parse("2026-11-21T11:30:00.125Z"))
    }

    @Test func impossibleDatesAreNoDates() throws {
        let m = try PhotoReader.metadata(path: fixture("edge-bad-dates.jpg"))
        #expect(m.gpsTime == nil)
        #expect(m.takenAtLocal == nil)
        #expect(m.position != nil)
    }

    @Test func cameraClockWithoutOffsetUsesTheHuntsTimeZone() throws {
        let m = try PhotoReader.metadata(path: fixture("sphere-camera-clock.jpg"))
        #expect(m.utcOffsetSeconds == nil)
        #expect(
            m.takenAt(inTimeZone: TimeZone(identifier: "America/Los_Angeles")!)
                == RFC3339.parse("2026-11-21T19:45:00Z"))
        // Across a DST change: July is -07:00 in Las Vegas.
        var july = m
        july.takenAtLocal?.month = 7
        #expect(
            july.takenAt(inTimeZone: TimeZone(identifier: "America/Los_Angeles")!)
                == RFC3339.parse("2026-07-21T18:45:00Z"))
    }

    @Test func imageIdentityIgnoresMetadataButFileIdentityDoesNot() throws {
        let a = try PhotoReader.photo(path: fixture("sign-inside.jpg")).photo
        let b = try PhotoReader.photo(path: fixture("sign-retagged.jpg")).photo
        let c = try PhotoReader.photo(path: fixture("teleport-sign.jpg")).photo
        #expect(a.imageSHA256 == b.imageSHA256)
        #expect(a.fileSHA256 != b.fileSHA256)
        #expect(a.imageSHA256 != c.imageSHA256)
        // Appending bytes after EOI does not make a new photo either.
        let folder = try TestSupport.temporaryDirectory()
        let padded = folder.appendingPathComponent("padded.jpg")
        try Data(
            try Data(contentsOf: URL(fileURLWithPath: fixture("sign-inside.jpg")))
                + Data(repeating: 7, count: 100)
        ).write(to: padded)
        #expect(try PhotoReader.photo(path: padded.path).photo.imageSHA256 == a.imageSHA256)
    }

    @Test func brokenFilesAreTypedErrors() throws {
        #expect(throws: PhotoError.notJPEG(file: fixture("not-a-jpeg.jpg"))) {
            try PhotoReader.metadata(path: fixture("not-a-jpeg.jpg"))
        }
        #expect(throws: PhotoError.unreadable(file: "/nonexistent.jpg")) {
            try PhotoReader.metadata(path: "/nonexistent.jpg")
        }
        // Cut inside the EXIF segment: no metadata for `vsh exif`, corrupt for a check-in.
        #expect(try PhotoReader.metadata(path: fixture("truncated.jpg")).position == nil)
        #expect {
            try PhotoReader.photo(path: fixture("truncated.jpg"))
        } throws: { error in
            if case .corrupt = error as? PhotoError { return true }
            return false
        }
    }
}
