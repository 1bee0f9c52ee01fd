import Foundation
import Testing
import VSHCore

@Suite struct HuntClockTests {
    /// Times shown to people (the terminal, the venue's board) are on the clock of the hunt they belong to, summer time included; a
    /// time of no hunt is on the league's clock when its hunts keep one zone, else in UTC.
    @Test func timesAreOnTheHuntsClock() {
        func hunt(_ id: String, _ zone: String) -> Hunt { Hunt(id: id, name: id, timeZone: zone) }
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
}
