import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// `make corpus` (corpus/corpus.py): the conformance corpus fetched from its sources by pinned commit and
/// checked by SHA-256, then the peers' answers written beside it. No network here: the sources are a
/// mirror made from the corpus the tests read, laid out as GitHub's raw file server lays them out
/// (`<repository>/<commit>/<path>`) and served over HTTP by Python's http.server on loopback.
@Suite(.needsCorpus, .serialized) struct CorpusTests {
    struct Source {
        let file: String
        let url: String
    }

    static let script = TestSupport.packageRoot.appendingPathComponent("corpus/corpus.py").path

    /// The manifest's rows as file and relative URL.
    static func manifest() throws -> [Source] {
        let text = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("corpus/MANIFEST.tsv"), encoding: .utf8
        )
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("file\t") }.map {
            let columns = $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Source(file: columns[0], url: "\(columns[1])/\(columns[3])/\(columns[2])")
        }
    }

    /// Python's http.server on a loopback port, serving `folder`.
    final class Mirror {
        let process = Process()
        let port: Int

        init(serving folder: URL) throws {
            port = try TestSupport.freePort()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", folder.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<200 {
                if TestSupport.accepts(port: port) { return }
                usleep(50_000)
            }
            stop()
            throw FixtureError("python3 -m http.server did not start")
        }

        var base: String { "http://127.0.0.1:\(port)" }

        /// SIGKILL: a child of the test process starts with SIGTERM blocked (as MailTests found).
        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    static func makeMirror(in folder: URL) throws -> [Source] {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let sources = try manifest()
        for source in sources {
            let target = folder.appendingPathComponent(source.url)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: corpus.appendingPathComponent(source.file), to: target)
        }
        return sources
    }

    static func corpusPy(_ arguments: [String]) throws -> TestSupport.ProcessResult {
        try tool("python3", [script] + arguments)
    }

    @Test func theCorpusIsFetchedCheckedAndAnsweredAsThePeersAnswered() throws {
        let corpus = try #require(TestSupport.corpus, "VSH_CORPUS is not a corpus folder")
        let folder = try TestSupport.temporaryDirectory()
        let sources = try Self.makeMirror(in: folder.appendingPathComponent("mirror"))
        let mirror = try Mirror(serving: folder.appendingPathComponent("mirror"))
        defer { mirror.stop() }
        let into = folder.appendingPathComponent("corpus").path

        let fetched = try Self.corpusPy(["fetch", "--into", into, "--source", mirror.base])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("\(sources.count) files in \(into) (\(sources.count) fetched"))
        #expect(sources.count > 100)
        for source in sources {
            let mine = FileManager.default.contents(atPath: "\(into)/\(source.file)")
            #expect(
                mine != nil
                    && mine
                        == FileManager.default.contents(
                            atPath: corpus.appendingPathComponent(source.file).path),
                "\(source.file)")
        }
        // Again: nothing is fetched twice.
        let again = try Self.corpusPy(["fetch", "--into", into, "--source", mirror.base])
        #expect(again.status == 0 && again.stdout.contains("(0 fetched, \(sources.count) already there)"))

        // The peers' answers, made again, are the answers the tests compare vsh with.
        let answered = try Self.corpusPy(["reference", "--into", into])
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(
            answered.stdout.contains(
                "51 photos (exiftool), 24 GPX files (gpxpy, pyproj), 47 point-in-polygon cases"))
        let compare = """
            import json, math, sys
            mine, theirs = sys.argv[1] + '/reference/', sys.argv[2] + '/reference/'
            differences, compared = [], 0
            def same(a, b, where):
                global compared
                compared += 1
                if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
                    ok = math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
                elif isinstance(a, dict) and isinstance(b, dict):
                    return all([same(v, b.get(k), where + '.' + k) for k, v in a.items()])
                elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
                    return all([same(x, y, where + f'[{i}]') for i, (x, y) in enumerate(zip(a, b))])
                else:
                    ok = a == b
                if not ok:
                    differences.append(f'{where}: {a!r} against {b!r}')
                return ok
            for name in ('photos.json', 'photos_groups.json'):
                a = {e['SourceFile']: e for e in json.load(open(mine + name))}
                b = {e['SourceFile']: e for e in json.load(open(theirs + name))}
                same(a, b, name)
                same(sorted(a), sorted(b), name + ' files')
            a, b = json.load(open(mine + 'gpx.json'))['files'], json.load(open(theirs + 'gpx.json'))['files']
            same(sorted(a), sorted(b), 'gpx files')
            for f, facts in a.items():
                if facts['parsed']:
                    same(facts, b[f], f)
                else:
                    same(False, b[f]['parsed'], f)
            a, b = json.load(open(mine + 'pip.json')), json.load(open(theirs + 'pip.json'))
            bf = {x['file']: x for x in b['predicate_fixtures']}
            same(sorted(x['file'] for x in a['predicate_fixtures']), sorted(bf), 'pip files')
            for x in a['predicate_fixtures']:
                same(x, bf[x['file']], x['file'])
            same(len(a['bpip_cases']), len(b['bpip_cases']), 'bpip cases')
            for x, y in zip(a['bpip_cases'], b['bpip_cases']):
                same({k: v for k, v in x.items() if k != 'source'}, y, 'bpip ' + x['polygon_file'])
            print(json.dumps({'compared': compared, 'differences': differences[:20]}))
            """
        let result = try tool("python3", ["-c", compare, into, corpus.path])
        let verdict = try json(result.stdout)
        #expect(verdict["differences"] == .array([]), "\(result.stdout)\(result.stderr)")
        #expect((verdict["compared"]?.int ?? 0) > 2_000, "\(result.stdout)")
    }

    @Test func aFileThatIsNotTheManifestsIsNotKeptAndAMissingSourceIsSaid() throws {
        let folder = try TestSupport.temporaryDirectory()
        let sources = try Self.makeMirror(in: folder.appendingPathComponent("mirror"))
        let victim = try #require(sources.first { $0.file.hasPrefix("gpx/") })
        let served = folder.appendingPathComponent("mirror/\(victim.url)")
        var bytes = try Data(contentsOf: served)
        bytes[bytes.count / 2] ^= 0x20
        try bytes.write(to: served)
        let mirror = try Mirror(serving: folder.appendingPathComponent("mirror"))
        defer { mirror.stop() }

        let into = folder.appendingPathComponent("corpus")
        let tampered = try Self.corpusPy(["fetch", "--into", into.path, "--source", mirror.base])
        #expect(tampered.status == 65)
        #expect(tampered.stderr.contains("\(victim.file): SHA-256"), "\(tampered.stderr)")
        #expect(tampered.stderr.contains("not kept"))
        #expect(!FileManager.default.fileExists(atPath: into.appendingPathComponent(victim.file).path))
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: into.path).filter {
            $0.contains(".fetch-")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")

        // The answers are not written over a corpus with a file missing.
        let answered = try Self.corpusPy(["reference", "--into", into.path])
        #expect(answered.status == 66 && answered.stderr.contains("fetch first"), "\(answered.stderr)")

        // Nobody listening: one line saying so, exit 69 (EX_UNAVAILABLE).
        let closed = try TestSupport.freePort()
        let unreachable = try Self.corpusPy([
            "fetch", "--into", folder.appendingPathComponent("other").path, "--source",
            "http://127.0.0.1:\(closed)",
        ])
        #expect(unreachable.status == 69)
        #expect(
            unreachable.stderr.contains("cannot reach http://127.0.0.1:\(closed)"), "\(unreachable.stderr)")
    }
}
