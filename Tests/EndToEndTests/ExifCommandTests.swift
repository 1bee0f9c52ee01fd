import Foundation
import Testing
import VSHCore
import VSHTestSupport

@Suite struct ExifCommandTests {
    /// Every corpus photo through `vsh exif --json`: one line each, no crash,
    /// the unreadable ones as `{file, error}` and exit 65.
    @Test(.needsCorpus) func theWholeCorpusGivesOneLineEachAndExit65ForTheUnreadable() throws {
        let corpus = try #require(TestSupport.corpus)
        let folder = corpus.appendingPathComponent("photos")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            folder.appendingPathComponent($0).path
        }
        let result = try TestSupport.run("vsh", ["exif", "--json"] + files)
        #expect(result.status == 65)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == files.count)
        var errors: [String] = []
        for (line, file) in zip(lines, files) {
            let object = try json(line)
            #expect(object["file"]?.string == file)
            if let error = object["error"]?.string {
                errors.append("\((file as NSString).lastPathComponent): \(error)")
            } else {
                guard case .object(let fields) = object else { continue }
                #expect(
                    fields.keys == [
                        "file", "lat", "lon", "altitude_m", "gps_time", "taken_at", "utc_offset",
                        "accuracy_m", "make", "model", "software", "width", "height",
                    ])
            }
        }
        #expect(
            errors == [
                "exiv2__issue_2320_poc.jpg: not a JPEG file",
                "mei__ImageTestSuite__f012a4321f00f12af6b1eee7580ffb9c.jpg: not a JPEG file",
            ])
    }

    @Test func readableFilesExitZeroAndMissingOnesSixtySix() throws {
        let photo = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path
        let ok = try TestSupport.run("vsh", ["exif", "--json", photo])
        #expect(ok.status == 0)
        let fields = try json(ok.stdout)
        #expect(fields["lat"] == .double(36.082014))
        #expect(fields["gps_time"]?.string == "2026-11-21T19:30:00Z")
        #expect(fields["taken_at"]?.string == "2026-11-21T11:30:00.250-08:00")
        #expect(fields["utc_offset"]?.string == "-08:00")
        let missing = try TestSupport.run("vsh", ["exif", "/nonexistent/photo.jpg"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "vsh: /nonexistent/photo.jpg: cannot open the photo\n")
    }

    /// Positions print with at most 7 decimals (about 1 cm), in text and JSON: EXIF's degree,
    /// minute and second rationals used to print as `-115.17290072222222`.
    @Test func positionsPrintWithoutFloatNoise() throws {
        let folder = TestSupport.packageRoot.appendingPathComponent("Fixtures/photos")
        let photos = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".jpg")
        }.sorted().map { folder.appendingPathComponent($0).path }
        #expect(photos.count > 10)
        let noise = #/-?\d+\.\d{8,}/#
        let text = try TestSupport.run("vsh", ["exif"] + photos).stdout
        let positions = text.split(separator: "\n").filter {
            $0.contains("position  ") && !$0.contains("none")
        }
        #expect(positions.count > 10)
        for line in positions { #expect(line.firstMatch(of: noise) == nil, "\(line)") }
        let lines = try TestSupport.run("vsh", ["exif", "--json"] + photos).stdout.split(separator: "\n")
        #expect(lines.count == photos.count)
        for line in lines { #expect(line.firstMatch(of: noise) == nil, "\(line)") }
        // Rounded, not cut: 36.06398972222222 is 36.0639897.
        #expect(text.contains("36.0639897, -115.1893931"), "\(text)")
    }

    /// Text from photos and file names reaches the terminal escaped: an escape sequence in EXIF
    /// Make or in a file's name used to move the cursor and rewrite what a moderator read.
    @Test func controlCharactersInEXIFAndFileNamesAreEscaped() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(folder) }
        let name = "sign\u{1B}[2J\u{202E}gpj.jpg"
        let photo = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(
            atPath: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg").path,
            toPath: photo)
        let make = "Canon\u{1B}[1A\u{1B}[2Kposition  0, 0\u{7}"
        let tagged = try TestSupport.run(
            "/usr/bin/exiftool", ["-q", "-overwrite_original", "-Make=\(make)", photo])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let text = try TestSupport.run("vsh", ["exif", photo])
        #expect(text.status == 0)
        for raw in ["\u{1B}", "\u{7}", "\u{202E}"] { #expect(!text.stdout.contains(raw), "\(text.stdout)") }
        #expect(text.stdout.contains("Canon\\u{1B}[1A\\u{1B}[2Kposition  0, 0\\u{7}"), "\(text.stdout)")
        #expect(text.stdout.contains("sign\\u{1B}[2J\\u{202E}gpj.jpg"), "\(text.stdout)")
        // JSON keeps the text exactly, escaped the JSON way.
        let lines = try TestSupport.run("vsh", ["exif", "--json", photo])
        for raw in ["\u{1B}", "\u{7}", "\u{202E}"] { #expect(!lines.stdout.contains(raw)) }
        let object = try json(lines.stdout)
        #expect(object["make"]?.string == make && object["file"]?.string == photo)
        // Errors too: a missing file named with a control sequence.
        let missing = try TestSupport.run(
            "vsh", ["exif", folder.appendingPathComponent("x\u{1B}[31m.jpg").path])
        #expect(missing.status == 66)
        #expect(
            !missing.stderr.contains("\u{1B}") && missing.stderr.contains("x\\u{1B}[31m.jpg"),
            "\(missing.stderr)")
    }
}
