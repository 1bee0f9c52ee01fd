import Foundation
import Testing
import VSHCommandSupport
import VSHCore
import VSHSpatiaLite

/// The command line's own pieces: its words for library errors and its terminal layout.
@Suite struct CommandSupportTests {
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
}
