import Foundation
import Testing
import VSHCore
import VSHPhoto
import VSHTestSupport

/// exiftool's answers for the corpus photos (reference/photos.json and photos_groups.json).
struct ExiftoolReference {
    let file: String
    /// Signed, from the EXIF GPS IFD with its Refs (exiftool's Composite tags).
    let latitude: Double?
    let longitude: Double?
    /// The GPS IFD has coordinates, but exiftool could not sign them (no Ref).
    let unsignedOnly: Bool
    let altitude: Double?
    let gpsDateStamp: String?
    let gpsTimeStamp: String?
    let dateTimeOriginal: String?
    let width: Int?
    let height: Int?
    let accuracy: Double?

    static func load() throws -> [ExiftoolReference] {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        func entries(_ name: String) throws -> [String: JSONObject] {
            let value = try JSONValue.parse(
                [UInt8](Data(contentsOf: corpus.appendingPathComponent("reference/\(name)"))))
            guard case .array(let items) = value else { return [:] }
            var result: [String: JSONObject] = [:]
            for case .object(let object) in items {
                if case .string(let file)? = object["SourceFile"] { result[file] = object }
            }
            return result
        }
        let plain = try entries("photos.json")
        let groups = try entries("photos_groups.json")
        func number(_ value: JSONValue?) -> Double? {
            if case .number(let n, _)? = value { return n }
            return nil
        }
        func string(_ value: JSONValue?) -> String? {
            if case .string(let s)? = value { return s }
            return nil
        }
        return plain.keys.sorted().map { file in
            let p = plain[file]!
            let g = groups[file] ?? JSONObject()
            let fromGPS = g["GPS:GPSLatitude"] != nil && g["GPS:GPSLongitude"] != nil
            let lat = fromGPS ? number(g["Composite:GPSLatitude"]) : nil
            let lon = fromGPS ? number(g["Composite:GPSLongitude"]) : nil
            return ExiftoolReference(
                file: file, latitude: lat, longitude: lon,
                unsignedOnly: g["GPS:GPSLatitude"] != nil && (lat == nil || lon == nil),
                altitude: number(g["Composite:GPSAltitude"]) ?? number(g["GPS:GPSAltitude"]),
                gpsDateStamp: string(p["GPSDateStamp"]), gpsTimeStamp: string(p["GPSTimeStamp"]),
                dateTimeOriginal: string(p["DateTimeOriginal"]),
                width: number(p["ImageWidth"]).map { Int($0) },
                height: number(p["ImageHeight"]).map { Int($0) },
                accuracy: number(p["GPSHPositioningError"]))
        }
    }
}

@Suite(.needsCorpus) struct CorpusPhotoTests {
    let corpus = TestSupport.corpus

    func metadata(_ file: String) throws -> PhotoMetadata? {
        let path = try #require(corpus).appendingPathComponent(file).path
        return try? PhotoReader.metadata(path: path)
    }

    @Test func signedPositionsAndAltitudesMatchExiftool() throws {
        var compared = 0
        for reference in try ExiftoolReference.load() {
            guard let lat = reference.latitude, let lon = reference.longitude else { continue }
            let found = try #require(try metadata(reference.file), "\(reference.file) unreadable")
            #expect(
                abs((found.latitude ?? .nan) - lat) < 1e-6,
                "\(reference.file) latitude \(String(describing: found.latitude)) vs \(lat)")
            #expect(
                abs((found.longitude ?? .nan) - lon) < 1e-6,
                "\(reference.file) longitude \(String(describing: found.longitude)) vs \(lon)")
            if let altitude = reference.altitude {
                #expect(abs((found.altitudeMeters ?? .nan) - altitude) < 0.01, "\(reference.file) altitude")
            } else {
                #expect(found.altitudeMeters == nil, "\(reference.file) altitude")
            }
            compared += 1
        }
        #expect(compared >= 25, "only \(compared) photos with a signed position")
    }

    @Test func gpsTimesMatchExiftoolWhereTheDateStampIsWellFormed() throws {
        var compared = 0
        for reference in try ExiftoolReference.load() {
            guard let stamp = reference.gpsDateStamp, let time = reference.gpsTimeStamp, stamp.count == 10,
                let expected = RFC3339.parse(
                    stamp.replacingOccurrences(of: ":", with: "-") + "T" + time + "Z")
            else { continue }
            let found = try #require(try metadata(reference.file))
            #expect(
                found.gpsTime.map { abs($0.timeIntervalSince(expected)) < 0.001 } == true,
                "\(reference.file): \(String(describing: found.gpsTime)) vs \(expected)")
            compared += 1
        }
        #expect(compared == 14, "GPS times compared: \(compared)")
    }

    /// Where exiftool is silent, unsigned, or reads something other than the EXIF
    /// IFDs, vsh's documented answer (README, "Reading EXIF").
    @Test func documentedAnswersWherePeersDiffer() throws {
        // GPSLatitude 4294967295/1 with no Ref and no longitude: no position (exiftool: the unsigned magnitude).
        let pillow = try #require(try metadata("photos/pillow__exif_gps.jpg"))
        #expect(pillow.latitude == nil && pillow.position == nil)
        // GPSDateStamp "2008:05:08 09:54:28" (a time appended): the date is still clear.
        let furnace = try #require(try metadata("photos/exiv2__FurnaceCreekInn.jpg"))
        #expect(furnace.gpsTime == RFC3339.parse("2008-05-08T09:54:28Z"))
        // GPSDateStamp "2014:09:259": not a date; no GPS time (exiftool glues it into "2014:09:259 13:05:12.05Z").
        let iphone6 = try #require(try metadata("photos/mei__Apple_iPhone_6.jpg"))
        #expect(iphone6.gpsTime == nil)
        #expect(iphone6.position != nil)
        // Fuzzed GPS hours and an unreadable date: no GPS time, position still from good rationals.
        let poc = try #require(try metadata("photos/exiv2__issue_1912_poc.jpg"))
        #expect(poc.gpsTime == nil)
        #expect(abs((poc.longitude ?? 0) - -116.000120135181) < 1e-6)
        // GPS 0/0/0 (FLIR writes zeros when it has no fix): reported as 0, 0; the verifier refuses 0, 0.
        let flir = try #require(try metadata("photos/mei__FLIR_Vue_Pro_640.jpg"))
        #expect(flir.latitude == 0 && flir.longitude == 0)
        // FLIR's position lives in FLIR maker notes, not the EXIF GPS IFD: vsh reports none.
        #expect(try #require(try metadata("photos/mei__FLIR_iPhone_device.jpg")).position == nil)
        // EXIF IFD0 says FUJIFILM 2001; exiftool prefers the embedded Canon CIFF block.
        let exiftool = try #require(try metadata("photos/exiftool__ExifTool.jpg"))
        #expect(exiftool.make == "FUJIFILM")
        #expect(exiftool.takenAtText == "2001-05-19T18:36:41")
        // A segment length 2 bytes short (XMP): resynchronised like libjpeg, so the frame size is found.
        let short = try #require(try metadata("photos/mei__Issue_308.jpg"))
        #expect(short.width == 2048 && short.height == 1536)
        // OffsetTimeOriginal and SubSecTimeOriginal are kept.
        let google = try #require(try metadata("photos/exiftool__Google.jpg"))
        #expect(google.takenAtText == "2023-10-06T22:53:51.724+02:00")
        #expect(
            google.takenAt(inTimeZone: TimeZone(identifier: "UTC")!)
                == RFC3339.parse("2023-10-06T20:53:51.724Z"))
        // GPSHPositioningError as the accuracy.
        #expect(
            try #require(try metadata("photos/mei__Issue_508.jpg")).accuracyMeters.map {
                abs($0 - 4.792726461) < 1e-6
            } == true)
    }

    @Test func frameSizesMatchExiftool() throws {
        var compared = 0
        for reference in try ExiftoolReference.load() where reference.width != nil {
            guard let found = try metadata(reference.file) else { continue }
            #expect(found.width == reference.width && found.height == reference.height, "\(reference.file)")
            compared += 1
        }
        // Most corpus photos have a frame size in exiftool's answers (a loop over none would pass).
        #expect(compared >= 40, "only \(compared) photos compared")
    }

    @Test func unreadableFilesAreErrorsNotCrashes() throws {
        let root = try #require(corpus).appendingPathComponent("photos")
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        #expect(files.count == 51)
        var errors: [String] = []
        for file in files {
            do { _ = try PhotoReader.metadata(path: root.appendingPathComponent(file).path) } catch {
                errors.append(file)
            }
        }
        // A TIFF header without SOI and a file starting with garbage: not JPEGs.
        #expect(
            errors == [
                "exiv2__issue_2320_poc.jpg", "mei__ImageTestSuite__f012a4321f00f12af6b1eee7580ffb9c.jpg",
            ])
    }

    /// Every corpus photo truncated at many offsets and with bytes flipped goes
    /// through both readers: an error or an answer, never a crash.
    @Test func truncatedAndFlippedPhotosNeverCrash() throws {
        let root = try #require(corpus).appendingPathComponent("photos")
        let folder = try TestSupport.temporaryDirectory("vsh-mutate")
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SplitMix64(seed: 2026)
        var tried = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let original = try [UInt8](Data(contentsOf: root.appendingPathComponent(file)))
            let head = Array(original.prefix(128 * 1024))
            var variants: [[UInt8]] = []
            for cut in [1, 2, 3, 4, 10, 20, 50, 100, 200, 500, 1000, 2000, 4000, 8000, 16000, 65000]
            where cut < head.count {
                variants.append(Array(head.prefix(cut)))
            }
            for _ in 0..<12 {
                var flipped = head
                for _ in 0..<4 where !flipped.isEmpty {
                    let at = Int(generator.next() % UInt64(min(flipped.count, 4096)))
                    flipped[at] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                }
                variants.append(flipped)
            }
            for variant in variants {
                let path = folder.appendingPathComponent("m.jpg").path
                try Data(variant).write(to: URL(fileURLWithPath: path))
                _ = try? PhotoReader.metadata(path: path)
                _ = try? PhotoReader.photo(path: path)
                tried += 1
            }
        }
        #expect(tried > 1000)
    }
}

/// The verifier and `vsh exif` read one and the same metadata (issue 14): the check-in path
/// walks the whole file, `vsh exif` stops at the first scan, and both take only the EXIF
/// segment before the image data.
@Suite struct OneReaderTests {
    @Test(.needsCorpus) func theCheckInAndVshExifReadTheSameMetadataOnTheCorpus() throws {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let folder = corpus.appendingPathComponent("photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg")
        }.sorted()
        var compared = 0
        for name in names {
            let path = folder.appendingPathComponent(name).path
            guard let shown = try? PhotoReader.metadata(path: path),
                let checked = try? PhotoReader.photo(path: path).photo.metadata
            else { continue }
            #expect(shown == checked, "\(name)")
            compared += 1
        }
        #expect(compared >= 30, "only \(compared) corpus photos were readable both ways")
    }

    /// A JPEG with no EXIF before its image data and a GPS-tagged APP1 segment after it, before
    /// EOI: exiftool and Pillow see no GPS there, and neither does vsh (the check-in used to).
    @Test func anEXIFSegmentAfterTheImageDataIsNotRead() throws {
        let tagged = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("sign-inside.jpg"))))
        // no-gps.jpg without its EXIF segment: no APP1 at all before the image data.
        let withExif = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("no-gps.jpg"))))
        let own = try #require(
            (2..<withExif.count - 10).first {
                withExif[$0] == 0xFF && withExif[$0 + 1] == 0xE1 && withExif[$0 + 4] == 0x45
            })
        let ownLength = Int(withExif[own + 2]) << 8 | Int(withExif[own + 3])
        let plain = Array(withExif[..<own]) + Array(withExif[(own + 2 + ownLength)...])
        // sign-inside.jpg's APP1 "Exif" segment.
        let start = try #require(
            (2..<tagged.count - 10).first {
                tagged[$0] == 0xFF && tagged[$0 + 1] == 0xE1 && tagged[$0 + 4] == 0x45
            })
        let length = Int(tagged[start + 2]) << 8 | Int(tagged[start + 3])
        let app1 = Array(tagged[start..<(start + 2 + length)])
        #expect(plain.suffix(2) == [0xFF, 0xD9])
        let forged = Array(plain.dropLast(2)) + app1 + [0xFF, 0xD9]
        #expect(try PhotoReader.photo(bytes: plain, name: "plain").metadata.positionNote == "no EXIF")
        let photo = try PhotoReader.photo(bytes: forged, name: "forged")
        #expect(photo.metadata.latitude == nil && photo.metadata.gpsTime == nil)
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("forged.jpg").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(forged)))
        #expect(try PhotoReader.metadata(path: path) == photo.metadata)
        // exiftool agrees: no GPS.
        let exiftool = try TestSupport.run("/usr/bin/exiftool", ["-n", "-GPSLatitude", "-s3", path])
        #expect(
            exiftool.status == 0 && exiftool.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }
}
