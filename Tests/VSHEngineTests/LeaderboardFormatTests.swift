import Foundation
import Testing
import VSHCore
import VSHEngine

@Suite struct LeaderboardFormatTests {
    static func entry(_ rank: Int, _ name: String) -> LeaderboardEntry {
        LeaderboardEntry(
            rank: rank, playerID: PlayerID(Int64(rank)), player: name, points: 10, huntsCompleted: 0,
            stopsVisited: 1, badges: 0, reachedAt: Date(timeIntervalSince1970: 0))
    }

    /// A name a spreadsheet would run as a formula ("-A1", "@SUM(...)") is written as text.
    @Test func csvKeepsSpreadsheetsFromRunningNamesAsFormulas() {
        let csv = LeaderboardFormat.csv([
            Self.entry(1, "-A1"), Self.entry(2, "=1+1"), Self.entry(3, "Ann"), Self.entry(4, "O'Neil, Bo"),
        ])
        #expect(
            csv
                == "rank,player,points,hunts_completed,stops_visited,badges\r\n"
                + "1,'-A1,10,0,1,0\r\n2,'=1+1,10,0,1,0\r\n3,Ann,10,0,1,0\r\n4,\"O'Neil, Bo\",10,0,1,0\r\n")
    }
}
