import NIOCore
import Testing

@testable import VSHServer

/// The event stream's sends: the league changing many times within `spacing` reaches a listener in
/// a few writes, not one a change, and nothing is lost on the way: every check-in's event in order,
/// and a last `change` carrying the last generation.
@Suite struct LeagueEventsTests {
    @Test func manyChangesReachAListenerInAFewWrites() async throws {
        let events = LeagueEvents(spacing: .milliseconds(500))
        let (stream, end) = try #require(events.subscribe(from: "127.0.0.1"))
        let checkIns = 1_000
        for id in 1...checkIns {
            events.checkedIn(Int64(id))
            events.publish()
        }
        var writes = 0
        var text = ""
        for await event in stream {
            guard case .events(let bytes) = event else { continue }
            writes += 1
            text += String(buffer: bytes)
            if text.contains("event: checkin\ndata: \(checkIns)\n\n")
                && text.hasSuffix("data: \(checkIns)\n\n")
            {
                break
            }
        }
        end()
        // The first change goes at once, the rest together when the spacing has passed.
        #expect(writes >= 2 && writes <= 4, "\(writes) writes for \(checkIns) changes")
        let ids = text.matches(of: #/event: checkin\ndata: (\d+)\n\n/#).map { Int($0.1)! }
        #expect(ids == Array(1...checkIns))
        let changes = text.matches(of: #/event: change\ndata: (\d+)\n\n/#).map { Int($0.1)! }
        #expect(changes.count < writes && changes.last == checkIns, "\(changes)")
    }

    @Test func nothingWaitsWhenNobodyListens() async throws {
        let events = LeagueEvents(spacing: .milliseconds(500))
        for id in 1...100 {
            events.checkedIn(Int64(id))
            events.publish()
        }
        // A page that comes later hears only what happens after it came.
        let (stream, end) = try #require(events.subscribe(from: "127.0.0.1"))
        events.checkedIn(101)
        events.publish()
        var text = ""
        for await event in stream {
            guard case .events(let bytes) = event else { continue }
            text += String(buffer: bytes)
            if text.contains("event: change") { break }
        }
        end()
        #expect(text == "event: checkin\ndata: 101\n\nevent: change\ndata: 101\n\n")
    }
}
