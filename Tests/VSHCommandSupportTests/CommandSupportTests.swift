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
