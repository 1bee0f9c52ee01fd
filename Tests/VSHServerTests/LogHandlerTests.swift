import Foundation
import Logging
import Synchronization
import Testing
import VSHCore

@testable import VSHServer

/// The server's text log lines are swift-log's `StreamLogHandler` lines, byte for byte, and the
/// time stamps kept for a second are the ones `strftime` and `RFC3339` give for that second.
@Suite struct LogHandlerTests {
    /// What a `StreamLogHandler` wrote.
    final class Captured: TextOutputStream, @unchecked Sendable {
        let lines = Mutex<[String]>([])
        func write(_ string: String) { lines.withLock { $0.append(string) } }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the \"store\" is \u{1F3B0} busy" }
    }

    /// Entries as the service makes them: the access log's (a request id in the logger's
    /// metadata), start-up lines (none), explicit metadata of every kind, errors, every level,
    /// text that is not ASCII, and an empty label.
    static let events: [(label: String, base: Logger.Metadata, event: LogEvent)] = {
        let request: Logger.Metadata = ["hb.request.id": "627907bf5903708f2f480e1265f39f56"]
        func event(
            _ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata? = nil,
            error: (any Error)? = nil, source: String = "VSHServer"
        ) -> LogEvent {
            LogEvent(
                level: level, message: message, error: error, metadata: metadata, source: source,
                file: "VSHServer/AccessLogMiddleware.swift", function: "handle(_:context:next:)", line: 33)
        }
        return [
            ("vsh", request, event(.info, "127.0.0.1 GET /v1/leaderboard 200 0.1 ms")),
            (
                "vsh", [:],
                event(.info, "Server started and listening on 127.0.0.1:8080", source: "HummingbirdCore")
            ),
            (
                "vsh", request,
                event(
                    .info, "request",
                    [
                        "client": "203.0.113.7", "status": "201", "duration_ms": "412.0",
                        "route": "/v1/accounts",
                    ])
            ),
            ("vsh", request, event(.error, "the check-in was not recorded", error: Refused())),
            (
                "vsh", ["zone": "América/Los_Ángeles", "a": .stringConvertible(42)],
                event(.warning, "Bobby'); DROP TABLE stops;-- ✓ شارع", ["b": ["x", "y"], "c": ["k": "v"]])
            ),
            ("", [:], event(.trace, "")),
            ("vsh.store", request, event(.debug, "group of 27", ["hb.request.id": "overridden"])),
            ("vsh", [:], event(.notice, "shutting down")),
            ("vsh", [:], event(.critical, "line one\nline two")),
        ]
    }()

    /// Each event logged by `StreamLogHandler` and by `TextLogHandler` with the same metadata and
    /// provider; how many lines were compared (a pair is taken again when the clock's second
    /// turned while swift-log wrote, as it reads the clock itself).
    func compareLines(provider: Logger.MetadataProvider?) throws -> Int {
        var compared = 0
        for (label, base, event) in Self.events {
            for _ in 0..<10 {
                let captured = Captured()
                var reference = StreamLogHandler(label: label, stream: captured, metadataProvider: provider)
                reference.metadata = base
                var ours = TextLogHandler(label: label)
                ours.metadataProvider = provider
                ours.metadata = base
                let before = time(nil)
                reference.log(event: event)
                guard time(nil) == before else { continue }
                let theirs = try #require(captured.lines.withLock { $0 }.first)
                #expect(ours.line(for: event, stamp: LogClock.local.text(at: before)) == theirs)
                compared += 1
                break
            }
        }
        return compared
    }

    @Test func linesAreStreamLogHandlers() throws {
        #expect(try compareLines(provider: nil) == Self.events.count)
    }

    /// A metadata provider's values are merged as `StreamLogHandler` merges them: over the
    /// logger's own, under the entry's.
    @Test func providedMetadataIsMergedAsSwiftLogMergesIt() throws {
        let provider = Logger.MetadataProvider { ["trace": "abc", "hb.request.id": "from-provider"] }
        #expect(try compareLines(provider: provider) == Self.events.count)
    }

    /// The kept stamp is the second asked for, whichever second was asked before it.
    @Test func stampsAreTheSecondsAskedFor() {
        var generator = SystemRandomNumberGenerator()
        let now = time(nil)
        var seconds: [time_t] = [now, now, now + 1, now, 0, 86_399, 86_400, 951_782_400, 4_102_444_799]
        for _ in 0..<2_000 {
            let base = seconds.last!
            seconds.append(
                Bool.random(using: &generator)
                    ? base + time_t.random(in: 0...2, using: &generator)
                    : time_t.random(in: 0...4_102_444_799, using: &generator))
        }
        for second in seconds {
            var moment = second
            var parts = tm()
            #expect(localtime_r(&moment, &parts) != nil)
            var buffer = [CChar](repeating: 0, count: 64)
            let count = strftime(&buffer, 64, "%Y-%m-%dT%H:%M:%S%z", &parts)
            let expected = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            #expect(LogClock.local.text(at: second) == expected)
            let date = Date(timeIntervalSince1970: Double(second) + 0.25)
            let whole = RFC3339.format(Date(timeIntervalSince1970: Double(second)))
            #expect(JSONLogHandler.time(date) == whole.dropLast() + ".250Z")
        }
        #expect(seconds.count > 2_000)
    }

    /// JSON lines' milliseconds: three digits, rounded down, never 1000.
    @Test func jsonTimesCarryMilliseconds() {
        let second = 1_795_896_000.0  // 2026-11-28T20:00:00Z
        #expect(JSONLogHandler.time(Date(timeIntervalSince1970: second)) == "2026-11-28T20:00:00.000Z")
        #expect(
            JSONLogHandler.time(Date(timeIntervalSince1970: second + 0.0075)) == "2026-11-28T20:00:00.007Z")
        #expect(
            JSONLogHandler.time(Date(timeIntervalSince1970: second + 0.9999)) == "2026-11-28T20:00:00.999Z")
        #expect(JSONLogHandler.time(Date(timeIntervalSince1970: second + 61.5)) == "2026-11-28T20:01:01.500Z")
    }

    /// A line is written whole to its descriptor, even a long one, and a closed pipe is not an error.
    @Test func linesAreWrittenWholeAndAClosedPipeIsDropped() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let output = LogOutput(descriptor: ends[1])
        let long = String(repeating: "é", count: 20_000) + "\n"
        // Read while written: the long line is larger than a pipe holds.
        let received = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        let readEnd = ends[0]
        DispatchQueue.global().async {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let got = read(readEnd, &chunk, chunk.count)
                if got <= 0 { break }
                received.withLock { $0.append(contentsOf: chunk[0..<got]) }
            }
            done.signal()
        }
        output.write("first line\n")
        output.write(long)
        close(ends[1])
        done.wait()
        #expect(String(decoding: received.withLock { $0 }, as: UTF8.self) == "first line\n" + long)

        var closed: [Int32] = [0, 0]
        #expect(pipe(&closed) == 0)
        close(closed[0])
        signal(SIGPIPE, SIG_IGN)
        LogOutput(descriptor: closed[1]).write("nobody reads this\n")
        close(closed[1])
    }
}
