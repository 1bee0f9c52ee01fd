import Foundation
import VSHCore
import VSHPhoto
import VSHSpatiaLite
import VSHTestSupport
import VSHXML

// vsh-fuzz: a mutation fuzzer for vsh's three readers of outside files.
//
//   vsh-fuzz TARGET SECONDS SEED_DIR... [--out DIR]      TARGET: exif, gpx or hunt
//
// Each round takes a seed (a real file from $VSH_CORPUS or Fixtures/, or an earlier input
// that gave a new outcome), mutates it (bit flips, interesting integers, inserted, deleted,
// duplicated and spliced ranges, format tokens, truncation), writes it to DIR/current-TARGET
// and reads it the way `vsh` does. A crash or a hang (10 s) renames that file to
// DIR/crash-TARGET-<n> and exits 1; a clean run prints what it tried and exits 0.
// Outcomes (the answer's shape, or the error message with its numbers removed) are
// counted; an input with an outcome not seen before joins the seeds.

enum Target: String {
    case exif, gpx, hunt

    var extensions: Set<String> {
        switch self {
        case .exif: ["jpg", "jpeg"]
        case .gpx: ["gpx"]
        case .hunt: ["geojson", "json"]
        }
    }

    var tokens: [[UInt8]] {
        let text: [String]
        switch self {
        case .exif:
            text = [
                "\u{FF}\u{D8}", "\u{FF}\u{E1}", "Exif\0\0", "MM\0*", "II*\0", "\u{FF}\u{C0}", "\u{FF}\u{DA}",
                "\u{FF}\u{D9}",
            ]
        case .gpx:
            text = [
                "<trkpt lat=\"36.1\" lon=\"-115.1\">", "</trkpt>", "<time>2026-11-21T19:30:00Z</time>",
                "<ele>1e308</ele>",
                "<trkseg>", "</trkseg>", "<trk>", "<!ENTITY a \"aaaaaaaa\">", "&a;", "<![CDATA[", "]]>",
                "<!--", "-->",
                "lat=\"nan\"", "lon=\"inf\"", "<hdop>-1</hdop>", "<extensions>", "\u{FEFF}", "&#0;", "<<<<",
                String(repeating: "<a>", count: 300),
            ]
        case .hunt:
            text = [
                "{", "}", "[", "]", ",", "\"coordinates\"", "\"type\":\"Polygon\"",
                "\"type\":\"MultiPolygon\"", "1e308", "-0", "NaN",
                "null", "\"id\":\"a\"", "\"points\":-1", "[0,0]", "[[[0,0],[0,1],[1,1],[0,0]]]", "\u{0}",
                "\\u0000", "\\ud800",
                String(repeating: "[", count: 600), "\"properties\":{}", "1.7976931348623157e309",
                "\"stops\"",
            ]
        }
        return text.map { Array($0.utf8) }
    }
}

struct Fuzzer {
    let target: Target
    let folder: String
    var seeds: [[UInt8]]
    var random: SplitMix64
    var outcomes: [String: Int] = [:]
    let inspector: SpatiaLiteInspector

    var currentPath: String { folder + "/current-" + target.rawValue }

    static let interesting: [UInt64] = [
        0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
        0xFFFF_FFFF,
    ]

    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let count = bytes.count
            switch Int.random(in: 0..<10, using: &random) {
            case 0 where count > 0:  // flip a bit
                bytes[Int.random(in: 0..<count, using: &random)] ^=
                    1 << UInt8.random(in: 0..<8, using: &random)
            case 1 where count > 0:  // a random byte
                bytes[Int.random(in: 0..<count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 2 where count > 4:  // an interesting integer, big- or little-endian, 2 or 4 bytes
                let value = Self.interesting.randomElement(using: &random)!
                let width = Bool.random(using: &random) ? 2 : 4
                let at = Int.random(in: 0...(count - width), using: &random)
                let bigEndian = Bool.random(using: &random)
                for k in 0..<width {
                    let shift = bigEndian ? (width - 1 - k) * 8 : k * 8
                    bytes[at + k] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
                }
            case 3 where count > 1:  // delete a range
                let at = Int.random(in: 0..<count, using: &random)
                bytes.removeSubrange(at..<min(count, at + Int.random(in: 1...64, using: &random)))
            case 4 where count > 1:  // duplicate a range
                let at = Int.random(in: 0..<count, using: &random)
                let piece = bytes[at..<min(count, at + Int.random(in: 1...256, using: &random))]
                bytes.insert(contentsOf: piece, at: Int.random(in: 0...count, using: &random))
            case 5:  // a format token
                bytes.insert(
                    contentsOf: target.tokens.randomElement(using: &random)!,
                    at: Int.random(in: 0...count, using: &random))
            case 6 where count > 8:  // truncate
                bytes.removeSubrange(Int.random(in: 0..<count, using: &random)...)
            case 7:  // splice in a piece of another seed
                let other = seeds.randomElement(using: &random)!
                guard !other.isEmpty else { break }
                let from = Int.random(in: 0..<other.count, using: &random)
                let piece = other[from..<min(other.count, from + Int.random(in: 1...512, using: &random))]
                let at = Int.random(in: 0...count, using: &random)
                bytes.replaceSubrange(at..<min(count, at + piece.count), with: piece)
            case 8 where count > 0:  // a run of one byte
                let at = Int.random(in: 0..<count, using: &random)
                let run = [UInt8](
                    repeating: [0x00, 0xFF, 0x30, 0x3C][Int.random(in: 0..<4, using: &random)],
                    count: Int.random(in: 1...128, using: &random))
                bytes.replaceSubrange(at..<min(count, at + run.count), with: run)
            default:  // an ASCII digit or sign where a number may be
                if count > 0 {
                    bytes[Int.random(in: 0..<count, using: &random)] = Array("-.0123456789eE".utf8)
                        .randomElement(using: &random)!
                }
            }
        }
        return bytes
    }

    /// Reads the current file as vsh does; returns the outcome's shape.
    func run() -> String {
        switch target {
        case .exif:
            var outcome: String
            do {
                let metadata = try PhotoReader.metadata(path: currentPath)
                outcome = "metadata gps=\(metadata.latitude != nil) time=\(metadata.gpsTime != nil)"
            } catch { outcome = Self.shape(error.description) }
            // The check-in path: the whole photo, decoded (small files only, to keep the rounds quick).
            if (try? FileManager.default.attributesOfItem(atPath: currentPath)[.size] as? Int).flatMap({ $0 })
                ?? 0 <= 1 << 20
            {
                do {
                    _ = try PhotoReader.photo(path: currentPath)
                    outcome += " photo"
                } catch { outcome += " " + Self.shape(error.description) }
            }
            return outcome
        case .gpx:
            // The byte scanner against libxml2: what the scanner reads to the end, libxml2 must
            // read to the same events; a difference is a crash, kept like one.
            var scanned: [GPXEvent] = []
            var scannedVersion: String?
            var scanner: String
            do {
                if let reason = try GPXReader.scanOnly(
                    path: currentPath, version: &scannedVersion, { scanned.append($0) })
                {
                    scanner = "scanner declined: \(reason)"
                } else {
                    var reference: [GPXEvent] = []
                    var referenceVersion: String?
                    let agrees: Bool
                    do {
                        referenceVersion = try GPXReader.readWithLibXML2(path: currentPath) {
                            reference.append($0)
                        }
                        agrees = scanned == reference && scannedVersion == referenceVersion
                    } catch { agrees = false }
                    guard agrees else {
                        fatalError("vsh-fuzz: the GPX byte scanner and libxml2 read this file differently")
                    }
                    scanner = "scanner read"
                }
                // In segments of 64 bytes on two threads: the same events, the same decline, or
                // segments that do not join.
                var pieces: [GPXEvent] = []
                var piecesVersion: String?
                let segmented = try GPXReader.scanOnly(
                    path: currentPath, version: &piecesVersion, segmentBytes: 64, { pieces.append($0) })
                let sameDecline = segmented != nil && scanner == "scanner declined: \(segmented!)"
                let sameRead =
                    segmented == nil && scanner == "scanner read" && pieces == scanned
                    && piecesVersion == scannedVersion
                guard segmented == GPXReader.unsettled || sameDecline || sameRead else {
                    fatalError("vsh-fuzz: the GPX byte scanner read this file differently in segments")
                }
            } catch { scanner = "scanner: " + Self.shape("\(error)") }
            var points = 0
            var skipped = 0
            do {
                try GPXReader.read(path: currentPath) { event in
                    switch event {
                    case .point: points += 1
                    case .skipped: skipped += 1
                    default: break
                    }
                } restart: {
                    points = 0
                    skipped = 0
                }
                return "gpx points=\(min(points, 1)) skipped=\(min(skipped, 1)) \(scanner)"
            } catch { return Self.shape("\(error)") + " " + scanner }
        case .hunt:
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: currentPath))) ?? Data()
            let hunt = HuntFile.read(
                [UInt8](bytes), file: "fuzz.geojson", expectedID: nil, inspector: inspector)
            let badges = BadgeFile.read(
                [UInt8](bytes), file: "badges.json", huntIDs: ["strip-classics", "downtown-fremont"])
            let huntOutcome: String
            switch hunt {
            case .success(let h): huntOutcome = "hunt stops=\(min(h.stops.count, 2))"
            case .failure(let errors):
                huntOutcome = errors.errors.first.map { Self.shape("\($0.problem)") } ?? "no errors"
            }
            switch badges {
            case .success: return huntOutcome + " badges"
            case .failure(let errors):
                return huntOutcome + " " + (errors.errors.first.map { Self.shape("\($0.problem)") } ?? "")
            }
        }
    }

    /// An error message without its numbers and quoted parts: the kind of outcome.
    static func shape(_ message: String) -> String {
        var result = ""
        var quoted = false
        for c in message.unicodeScalars.prefix(160) {
            if c == "\"" || c == "'" {
                quoted.toggle()
                continue
            }
            if quoted || CharacterSet.decimalDigits.contains(c) { continue }
            result.unicodeScalars.append(c)
        }
        return result
    }
}

nonisolated(unsafe) var crashPath: [CChar] = []
nonisolated(unsafe) var savedPath: [CChar] = []

/// On a crash or a hang: keep the input that caused it, say where, and exit 1.
func onFatalSignal(_ signal: Int32) {
    crashPath.withUnsafeBufferPointer { from in
        savedPath.withUnsafeBufferPointer { to in
            _ = rename(from.baseAddress!, to.baseAddress!)
            let text =
                signal == SIGALRM
                ? "vsh-fuzz: a hang (10 s); the input is " : "vsh-fuzz: a crash (signal); the input is "
            _ = text.withCString { write(2, $0, strlen($0)) }
            _ = write(2, to.baseAddress!, strlen(to.baseAddress!))
            _ = write(2, "\n", 1)
        }
    }
    _exit(1)
}

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var out = ".build/fuzz"
    if let at = arguments.firstIndex(of: "--out"), at + 1 < arguments.count {
        out = arguments[at + 1]
        arguments.removeSubrange(at...(at + 1))
    }
    guard arguments.count >= 3, let target = Target(rawValue: arguments[0]),
        let seconds = Double(arguments[1]), seconds > 0
    else {
        FileHandle.standardError.write(
            Data("usage: vsh-fuzz exif|gpx|hunt SECONDS SEED_DIR... [--out DIR]\n".utf8))
        return 64
    }
    var seeds: [[UInt8]] = []
    for directory in arguments.dropFirst(2) {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            guard target.extensions.contains((name as NSString).pathExtension.lowercased()) else { continue }
            if let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= 4 << 20
            {
                seeds.append([UInt8](data))
            }
        }
    }
    guard !seeds.isEmpty else {
        FileHandle.standardError.write(
            Data(
                "vsh-fuzz: no \(target.rawValue) seeds in \(arguments.dropFirst(2).joined(separator: ", "))\n"
                    .utf8))
        return 66
    }
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    guard let inspector = try? SpatiaLiteInspector.standalone() else {
        FileHandle.standardError.write(Data("vsh-fuzz: cannot start SpatiaLite\n".utf8))
        return 70
    }
    let seed =
        UInt64(ProcessInfo.processInfo.environment["VSH_FUZZ_SEED"] ?? "")
        ?? UInt64(Date().timeIntervalSince1970 * 1000)
    var fuzzer = Fuzzer(
        target: target, folder: out, seeds: seeds, random: SplitMix64(seed: seed), inspector: inspector)
    crashPath = Array(fuzzer.currentPath.utf8CString)
    savedPath = Array("\(out)/crash-\(target.rawValue)-\(seed)".utf8CString)
    for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGALRM] {
        Foundation.signal(signal) { onFatalSignal($0) }
    }
    let started = Date()
    var rounds = 0
    let originalSeeds = seeds.count
    while Date().timeIntervalSince(started) < seconds {
        let input = fuzzer.mutate(fuzzer.seeds.randomElement(using: &fuzzer.random)!)
        // A new file each round: truncating or renaming over the old one makes ext4 flush it to disk
        // (auto_da_alloc), and a round spent 95% of its time waiting for that.
        unlink(fuzzer.currentPath)
        let fd = open(fuzzer.currentPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let written = input.withUnsafeBytes { raw in fd >= 0 ? write(fd, raw.baseAddress, raw.count) : -1 }
        if fd >= 0 { close(fd) }
        guard written == input.count else {
            FileHandle.standardError.write(Data("vsh-fuzz: cannot write \(fuzzer.currentPath)\n".utf8))
            return 73
        }
        alarm(10)
        let outcome = fuzzer.run()
        alarm(0)
        rounds += 1
        fuzzer.outcomes[outcome, default: 0] += 1
        // A new outcome joins the seeds; past 2,000 joined, it takes the place of an earlier one (memory stays bounded).
        if fuzzer.outcomes[outcome] == 1, input.count <= 4 << 20 {
            if fuzzer.seeds.count < originalSeeds + 2_000 {
                fuzzer.seeds.append(input)
            } else {
                fuzzer.seeds[Int.random(in: originalSeeds..<fuzzer.seeds.count, using: &fuzzer.random)] =
                    input
            }
        }
    }
    try? FileManager.default.removeItem(atPath: fuzzer.currentPath)
    let rate = Int(Double(rounds) / max(Date().timeIntervalSince(started), 0.001))
    print(
        "vsh-fuzz \(target.rawValue): \(rounds) inputs in \(Int(seconds)) s (\(rate)/s, seed \(seed)), \(originalSeeds) seed files, "
            + "\(fuzzer.outcomes.count) distinct outcomes, 0 crashes, 0 hangs")
    return 0
}

exit(main())
