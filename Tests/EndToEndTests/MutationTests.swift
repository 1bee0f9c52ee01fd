import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Where a JPEG's EXIF (APP1 "Exif") segment ends, walking the segment headers; nil without one.
func exifSegmentEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var offset = 2
    while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
        let marker = bytes[offset + 1]
        if marker == 0xDA || marker == 0xD9 { return nil }
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        let end = offset + 2 + length
        if marker == 0xE1, offset + 10 <= bytes.count,
            Array(bytes[offset + 4..<offset + 10]) == Array("Exif\0\0".utf8)
        {
            return end <= bytes.count ? end : nil
        }
        offset = end
    }
    return nil
}

/// Every corpus photo, truncated at many offsets and with flipped bytes, goes through
/// `vsh exif` and `vsh checkin`: no crash, a one-line error or a correct answer, and
/// nothing recorded for a photo that was refused.
@Suite struct MutationTests {
    struct Mutant {
        let name: String
        let original: String
        /// True when the EXIF segment is untouched, so `vsh exif` must answer as for the original.
        let exifIntact: Bool
    }

    static func makeMutants(into folder: URL) throws -> (mutants: [Mutant], originals: [String: URL]) {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let photos = corpus.appendingPathComponent("photos")
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter {
            $0.lowercased().hasSuffix(".jpg")
        }.sorted()
        #expect(names.count >= 40)
        var random = SplitMix64(seed: 0x5EED_0F_75_4A)
        var mutants: [Mutant] = []
        var originals: [String: URL] = [:]
        for (index, name) in names.enumerated() {
            let source = photos.appendingPathComponent(name)
            originals[name] = source
            let bytes = [UInt8](try Data(contentsOf: source))
            let exifEnd = exifSegmentEnd(bytes)
            func emit(_ tag: String, _ data: [UInt8], intact: Bool) throws {
                let file = String(format: "%02d-%@.jpg", index, tag)
                try Data(data).write(to: folder.appendingPathComponent(file))
                mutants.append(Mutant(name: file, original: name, exifIntact: intact))
            }
            // Truncations: through the headers, around the end of the EXIF segment, and into the scan.
            var cuts: Set<Int> = [
                0, 1, 2, 3, 4, 11, 20, 64, 200, 700, 2_000, 8_000, bytes.count / 2, bytes.count - 2,
                bytes.count - 1,
            ]
            if let exifEnd { cuts.formUnion([exifEnd - 1, exifEnd, exifEnd + 1, exifEnd + 1_000]) }
            for cut in cuts.sorted() where cut >= 0 && cut < bytes.count {
                try emit("cut\(cut)", Array(bytes[..<cut]), intact: exifEnd.map { cut >= $0 } ?? false)
            }
            // Flipped bytes: in the headers and EXIF (where parsers break), then in the image data.
            let head = min(bytes.count, (exifEnd ?? 4_096) + 512)
            for variant in 0..<10 {
                var mutated = bytes
                let count = [1, 2, 4, 8, 16][variant % 5]
                let inScan = variant >= 8 && exifEnd != nil && bytes.count > head + 64
                for _ in 0..<count {
                    let at =
                        inScan
                        ? Int.random(in: head..<bytes.count - 2, using: &random)
                        : Int.random(in: 2..<head, using: &random)
                    mutated[at] ^= UInt8.random(in: 1...255, using: &random)
                }
                try emit("flip\(variant)", mutated, intact: inScan)
            }
        }
        return (mutants, originals)
    }

    @Test(.needsCorpus) func mutatedPhotosGiveAnAnswerOrAOneLineErrorAndRecordNothingWhenRefused() throws {
        let workspace = try Workspace()
        let folder = workspace.root.appendingPathComponent("mutants")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (mutants, originals) = try Self.makeMutants(into: folder)
        #expect(mutants.count > 1_000)

        // vsh exif: one answer or one error line per file, never a crash.
        let exif = try TestSupport.run("vsh", ["exif", "--json", folder.path])
        #expect(
            exif.status == 0 || exif.status == 65,
            "vsh exif exited \(exif.status): \(exif.stderr.suffix(500))")
        // With --json, a file that cannot be read is {file, error} in the stream (and not repeated on stderr).
        var answers: [String: String] = [:]
        var refused: Set<String> = []
        for line in exif.stdout.split(separator: "\n") {
            let answer = try json(String(line))
            let file = try #require(answer["file"]?.string)
            #expect(file.hasPrefix(folder.path))
            let name = URL(fileURLWithPath: file).lastPathComponent
            if let error = answer["error"]?.string {
                #expect(!error.isEmpty && !error.contains("\n"))
                refused.insert(name)
            } else {
                answers[name] = Self.exifFields(answer)
            }
        }
        #expect(exif.stderr.isEmpty, "\(exif.stderr.prefix(300))")
        #expect(answers.count + refused.count == mutants.count)
        #expect(
            refused.contains(mutants.first { $0.name.hasSuffix("-cut0.jpg") }!.name),
            "an empty file is refused")
        #expect(exif.status == (refused.isEmpty ? 0 : 65))
        // Where the EXIF segment is whole, the answer is the original's.
        let reference = try TestSupport.run("vsh", ["exif", "--json"] + originals.values.map(\.path))
        var expected: [String: String] = [:]
        for line in reference.stdout.split(separator: "\n") {
            let answer = try json(String(line))
            expected[URL(fileURLWithPath: answer["file"]?.string ?? "").lastPathComponent] = Self.exifFields(
                answer)
        }
        var compared = 0
        for mutant in mutants where mutant.exifIntact {
            guard let want = expected[mutant.original] else { continue }
            #expect(answers[mutant.name] == want, "\(mutant.name) (from \(mutant.original))")
            compared += 1
        }
        #expect(compared > 100)

        // vsh checkin: every photo is either decided and recorded, or refused with a line naming it.
        try workspace.addPlayers("Ann")
        let checkin = try workspace.vsh([
            "checkin", "--player", "Ann", "--photo", folder.path, "--now", fixtureNow, "--json",
        ])
        #expect(
            [0, 1, 2, 65].contains(checkin.status),
            "vsh checkin exited \(checkin.status): \(checkin.stderr.suffix(500))")
        var decided = 0
        var failed: Set<String> = []
        for line in checkin.stdout.split(separator: "\n") {
            let answer = try json(String(line))
            let file = try #require(answer["file"]?.string)
            if answer["error"] != nil {
                failed.insert(file)
            } else {
                #expect(answer["verdict"]?.string != nil && answer["id"] != nil, "\(line)")
                decided += 1
            }
        }
        let errors = checkin.stderr.split(separator: "\n").map(Self.withoutToolName)
        for line in errors {
            #expect(line.hasPrefix(folder.path), "an error line that names no file: \(line)")
            #expect(
                failed.contains(String(line.prefix(upTo: line.range(of: ": ")?.lowerBound ?? line.endIndex))),
                "\(line)")
        }
        #expect(decided + failed.count == mutants.count)
        #expect(errors.count == failed.count)
        #expect(try workspace.totals()["Ann"]?.checkins == decided)
        #expect(decided > 100 && failed.count > 100)
        print(
            "mutation test: \(mutants.count) mutants of \(originals.count) corpus photos; vsh exif: \(answers.count) answered, \(refused.count) refused; vsh checkin: \(decided) decided, \(failed.count) refused"
        )
        let photoStore = URL(fileURLWithPath: workspace.db + ".photos")
        let archived =
            FileManager.default.enumerator(atPath: photoStore.path)?.compactMap { $0 as? String }.filter {
                $0.hasSuffix(".jpg")
            } ?? []
        #expect(archived.count <= decided)
        let integrity = try workspace.vsh(["doctor", "--json"], hunts: false)
        #expect(integrity.status == 0, "\(integrity.stdout)\(integrity.stderr)")
    }

    static func withoutToolName(_ line: Substring) -> Substring {
        line.hasPrefix("vsh: ") ? line.dropFirst(5) : line
    }

    static func exifFields(_ answer: JSONValue) -> String {
        guard case .object(var object) = answer else { return answer.compactText }
        // The size comes from the frame header, which a cut may remove; the EXIF fields must stay.
        for key in ["file", "width", "height"] { object[key] = nil }
        return JSONValue.object(object).compactText
    }
}
