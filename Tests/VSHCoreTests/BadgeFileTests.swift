import Foundation
import Testing
import VSHCore

@Suite struct BadgeFileTests {
    func problems(_ text: String) -> [String] {
        switch BadgeFile.read(Array(text.utf8), file: "hunts/badges.json", huntIDs: ["strip-classics"]) {
        case .success: return []
        case .failure(let errors): return errors.errors.map(\.description)
        }
    }

    @Test func readsEveryRuleKind() throws {
        let text = """
            {"badges": [
              {"id": "a", "name": "A", "rule": {"kind": "first_checkin"}},
              {"id": "b", "name": "B", "points": 5, "rule": {"kind": "time_window", "from": "22:00", "to": "04:00"}},
              {"id": "c", "name": "C", "rule": {"kind": "stops_within", "count": 5, "hours": 1.5}},
              {"id": "d", "name": "D", "rule": {"kind": "hunt_completed", "hunt": "strip-classics"}}
            ]}
            """
        let badges = try BadgeFile.read(Array(text.utf8), file: "b.json", huntIDs: ["strip-classics"]).get()
        #expect(
            badges.map(\.rule) == [
                .firstCheckIn, .timeWindow(fromMinute: 1320, toMinute: 240, count: 1),
                .stopsWithin(count: 5, hours: 1.5),
                .huntCompleted(huntID: "strip-classics"),
            ])
        #expect(badges[1].points == 5)
        // Written back as read.
        #expect(
            BadgeFile.ruleJSON(badges[1].rule).compactText
                == #"{"kind":"time_window","from":"22:00","to":"04:00","count":1}"#)
    }

    @Test func namesTheBadgeAndTheProblem() {
        #expect(
            problems(#"{"badges": [{"id": "x", "name": "X", "rule": {"kind": "lucky_seven"}}]}"#).first?
                .hasPrefix(#"hunts/badges.json: badge "x": "rule.kind" is "lucky_seven""#) == true)
        #expect(
            problems(
                #"{"badges": [{"id": "x", "name": "X", "rule": {"kind": "time_window", "from": "25:00", "to": "04:00"}}]}"#
            ) == [
                #"hunts/badges.json: badge "x": "rule.from" is "25:00"; use HH:MM"#
            ])
        #expect(
            problems(
                #"{"badges": [{"id": "x", "name": "X", "rule": {"kind": "hunt_completed", "hunt": "atlantis"}}]}"#
            ) == [
                #"hunts/badges.json: badge "x": "rule.hunt" must name a hunt of this folder"#
            ])
        #expect(
            problems(
                #"{"badges": [{"id": "x", "name": "X", "rule": {"kind": "stops_visited", "count": 0}}]}"#
            ).count == 1)
        #expect(
            problems(
                #"{"badges": [{"id": "x", "name": "X", "rule": {"kind": "first_checkin"}}, {"id": "x", "name": "Y", "rule": {"kind": "first_checkin"}}]}"#
            ) == [
                #"hunts/badges.json: badge "x": "id" "x" is used twice"#
            ])
        #expect(
            problems(
                #"{"badges": [{"id": "x", "name": "X", "colour": "red", "rule": {"kind": "first_checkin"}}]}"#
            ) == [
                #"hunts/badges.json: badge "x": unknown field "colour" (a typo?)"#
            ])
        #expect(problems("[1, 2]") == [#"hunts/badges.json: missing required field "badges""#])
        #expect(problems("{").first?.hasPrefix("hunts/badges.json: malformed JSON at line 1") == true)
    }

    @Test func theShippedBadgesAreValidAndVegasShaped() throws {
        let text = try String(
            contentsOf: TestPaths.strip.deletingLastPathComponent().appendingPathComponent("badges.json"),
            encoding: .utf8)
        let badges = try BadgeFile.read(
            Array(text.utf8), file: "badges.json", huntIDs: ["strip-classics", "downtown-fremont"]
        ).get()
        #expect(badges.count >= 8)
        #expect(Set(badges.map(\.rule.kind)).count == 8)
    }
}
