import Foundation
import Testing
import VSHCommandSupport
import VSHCore
import VSHHost
import VSHSpatiaLite

/// The command line's own pieces: its words for library errors and its terminal layout.
@Suite struct CommandSupportTests {
    /// The command line's table gives each kind of library failure its own documented exit code,
    /// and a verdict its 0, 1 or 2, as the README's "Exit codes" lists them.
    @Test func everyErrorKindHasItsOwnDocumentedExitCode() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../README.md"), encoding: .utf8)
        let documented = Set(
            readme.split(separator: "\n").compactMap { line -> Int32? in
                guard line.hasPrefix("| "), let code = line.dropFirst(2).split(separator: " ").first else {
                    return nil
                }
                return Int32(code)
            })
        let codes = ErrorKind.allCases.map { ExitStatus($0).rawValue }
        #expect(Set(codes).count == ErrorKind.allCases.count)
        #expect(codes.allSatisfy { $0 >= 64 && documented.contains($0) }, "\(codes) against \(documented)")
        #expect(ExitStatus(.invalidData) == .dataError && ExitStatus(.busy) == .busy)
        #expect([Verdict.accepted, .rejected, .pending].map { ExitStatus($0).rawValue } == [0, 1, 2])
    }

    /// The terminal's times are on the clock of the hunt they belong to, summer time included; a
    /// time of no hunt is on the league's clock when its hunts keep one zone, else in UTC.
    @Test func timesAreOnTheHuntsClock() {
        func hunt(_ id: String, _ zone: String) -> Hunt {
            var hunt = Hunt(id: id, name: id, stops: [])
            hunt.timeZone = zone
            return hunt
        }
        let winter = Date(timeIntervalSince1970: 1_795_285_860)  // 2026-11-21T18:31:00Z
        let summer = Date(timeIntervalSince1970: 1_783_096_200)  // 2026-07-03T16:30:00Z
        let vegas = HuntClock(hunts: [
            hunt("strip", "America/Los_Angeles"), hunt("fremont", "America/Los_Angeles"),
        ])
        #expect(vegas.second(winter, hunt: "strip") == "2026-11-21 10:31:00 PST")
        #expect(vegas.minute(summer, hunt: "fremont") == "2026-07-03 09:30 PDT")
        // 03:20 UTC on the 22nd is the evening of the 21st in Las Vegas.
        #expect(vegas.day(Date(timeIntervalSince1970: 1_795_317_600), hunt: nil) == "2026-11-21")
        #expect(vegas.minute(winter, hunt: "no-such-hunt") == "2026-11-21 10:31 PST")
        let two = HuntClock(hunts: [hunt("strip", "America/Los_Angeles"), hunt("mile", "America/New_York")])
        #expect(two.minute(winter, hunt: "mile") == "2026-11-21 13:31 EST")
        #expect(two.minute(winter, hunt: nil) == "2026-11-21 18:31 UTC")
        #expect(HuntClock(hunts: []).second(winter, hunt: "strip") == "2026-11-21 18:31:00 UTC")
        // A rule's words: each time in UTC on the hunt's clock, the rest as it was.
        #expect(
            two.words(
                "taken after the hunt closed at 2026-11-21T19:00:00Z, sent 2026-11-21T19:05:30.250Z",
                hunt: "mile")
                == "taken after the hunt closed at 2026-11-21 14:00:00 EST, sent 2026-11-21 14:05:30 EST")
        #expect(
            vegas.words("GPS time 2026-07-03T16:30:00Z", hunt: "strip") == "GPS time 2026-07-03 09:30:00 PDT")
        #expect(
            vegas.words("at 2026-13-40T25:00:00Z (no such time)", hunt: "strip")
                == "at 2026-13-40T25:00:00Z (no such time)")
        #expect(vegas.words("Zebra crossing", hunt: "strip") == "Zebra crossing")
    }

    /// The libraries never name a command or a flag; the CLI adds them.
    @Test func libraryErrorsGetTheCommandLinesWords() {
        #expect(String(describing: LeagueError.unknownPlayer(name: "Ann")) == "no player \"Ann\"")
        #expect(
            ErrorWords.message(LeagueError.unknownPlayer(name: "Ann"))
                == "no player \"Ann\" (add one with: vsh player add NAME)")
        #expect(ErrorWords.message(LeagueError.missingReason) == "give a reason (--reason TEXT)")
        #expect(
            ErrorWords.message(HuntSourceError.folderNotFound(path: "/x/hunts"))
                == "/x/hunts: hunts folder not found (set --hunts or VSH_HUNTS)")
        let hunt = LeagueError.unknownHunt(id: "atlantis", known: ["a", "b"])
        #expect(ErrorWords.message(hunt) == "no hunt \"atlantis\" (hunts: a, b)")
        for error in [
            LeagueError.unknownPlayer(name: "A"), .missingReason, .nameTaken(name: "A"),
            .unknownCheckIn(id: 1),
        ] {
            let text = String(describing: error)
            #expect(!text.contains("--") && !text.contains("vsh "), "\(text)")
        }
    }

    /// Columns line up by display width: a wide (CJK) name takes two columns a character.
    @Test func tablesAlignByDisplayWidth() {
        var table = TextTable(headers: ["PLAYER", "POINTS"], rightAligned: [1])
        table.append(["東京", "5"])
        table.append(["Ann Lee", "120"])
        let lines = table.render()
        #expect(lines == ["PLAYER   POINTS", "東京          5", "Ann Lee     120"])
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("e\u{301}") == 1)
    }

    /// Bulk output made as bytes (`vsh locate --fixes`) is written as it is when it is printable
    /// ASCII, and escaped line by line as `Output.line` escapes otherwise: an escape sequence or a
    /// right-to-left override in a line cannot reach the terminal raw.
    @Test func bulkLinesAreWrittenRawOnlyWhenPrintableASCII() {
        let plain = Array("1,strip-classics,welcome-sign\n2,world-0,w7\n".utf8)
        #expect(Output.safeBytes(plain) == plain)
        let hostile = Array("1,a,b\n2,\u{1B}[2J,\u{202E}gnp.exe\n3,c,d\n".utf8)
        let safe = String(decoding: Output.safeBytes(hostile), as: UTF8.self)
        #expect(safe == "1,a,b\n2,\\u{1B}[2J,\\u{202E}gnp.exe\n3,c,d\n", "\(safe)")
        #expect(!safe.utf8.contains(0x1B))
    }
}
