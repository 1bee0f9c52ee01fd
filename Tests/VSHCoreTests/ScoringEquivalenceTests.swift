import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Scoring as it was written first (a Calendar a check-in, dictionaries by id, copies of hunts
/// and badges): the reference the one-pass version is held to.
enum ReferenceScoring {
    static func events(for checkIns: [ScoredCheckIn], hunts: [ScoringHunt], badges: [Badge])
        -> [ScoreEvent]
    {
        let huntsByID = Dictionary(uniqueKeysWithValues: hunts.map { ($0.id, $0) })
        var stopPoints: [String: (hunt: String, points: Int)] = [:]
        for hunt in hunts { for stop in hunt.stops { stopPoints[stop.id] = (hunt.id, stop.points) } }

        var events: [ScoreEvent] = []
        var firstVisit: [String: Date] = [:]
        var visitOrder: [String: [String]] = [:]  // hunt -> stops in first-visit order
        var completed = Set<String>()
        var earned = Set<String>()
        var windowCounts: [String: Int] = [:]
        var localDays = Set<Int>()
        var checkInCount = 0

        for checkIn in checkIns.sorted(by: { ($0.time, $0.id) < ($1.time, $1.id) }) {
            guard let stop = stopPoints[checkIn.stopID], stop.hunt == checkIn.huntID,
                let hunt = huntsByID[checkIn.huntID]
            else { continue }
            checkInCount += 1
            if firstVisit[checkIn.stopID] == nil {
                firstVisit[checkIn.stopID] = checkIn.time
                visitOrder[hunt.id, default: []].append(checkIn.stopID)
                events.append(
                    ScoreEvent(
                        kind: .stop, huntID: hunt.id, stopID: checkIn.stopID, points: stop.points,
                        at: checkIn.time, checkInID: checkIn.id))
            }
            if !completed.contains(hunt.id), hunt.stops.allSatisfy({ firstVisit[$0.id] != nil }) {
                let inOrder = !hunt.ordered || visitOrder[hunt.id] == hunt.stops.map(\.id)
                if inOrder {
                    completed.insert(hunt.id)
                    events.append(
                        ScoreEvent(
                            kind: .bonus, huntID: hunt.id, points: hunt.bonusPoints, at: checkIn.time,
                            checkInID: checkIn.id))
                }
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = hunt.timeZone
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: checkIn.clock)
            let minuteOfDay = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            let dayNumber = RFC3339.daysFromCivil(parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
            localDays.insert(dayNumber)

            for badge in badges where !earned.contains(badge.id) {
                let holds: Bool
                switch badge.rule {
                case .firstCheckIn:
                    holds = checkInCount >= 1
                case .stopsVisited(let count):
                    holds = firstVisit.count >= count
                case .huntsCompleted(let count):
                    holds = completed.count >= count
                case .huntCompleted(let id):
                    holds = completed.contains(id)
                case .difficultyCompleted(let difficulty):
                    let ofKind = hunts.filter { $0.difficulty == difficulty }
                    holds = !ofKind.isEmpty && ofKind.allSatisfy { completed.contains($0.id) }
                case .timeWindow(let from, let to, let count):
                    let inside =
                        from < to
                        ? (minuteOfDay >= from && minuteOfDay < to)
                        : (minuteOfDay >= from || minuteOfDay < to)
                    if inside { windowCounts[badge.id, default: 0] += 1 }
                    holds = windowCounts[badge.id, default: 0] >= count
                case .stopsWithin(let count, let hours):
                    let times = firstVisit.values.filter {
                        $0 <= checkIn.time && checkIn.time.timeIntervalSince($0) <= hours * 3600
                    }
                    holds = times.count >= count
                case .consecutiveDays(let days):
                    var streak = 1
                    while localDays.contains(dayNumber - streak) { streak += 1 }
                    holds = streak >= days
                }
                if holds {
                    earned.insert(badge.id)
                    events.append(
                        ScoreEvent(
                            kind: .badge, huntID: hunt.id, badgeID: badge.id, points: badge.points,
                            at: checkIn.time, checkInID: checkIn.id))
                }
            }
        }
        return events
    }

}

/// The one-pass scoring gives exactly the reference's events on random leagues: hunts ordered
/// and not, a stop id shared by two hunts, every kind of badge, check-ins out of time order,
/// at stops of other hunts and unknown stops, clocks in several zones.
@Suite struct ScoringEquivalenceTests {
    /// A random league: 1-4 hunts (ordered and not, a stop id shared by two), eight badges of
    /// every kind but `omitting` in random order, and up to 60 check-ins over six days, some at
    /// other hunts' or unknown stops, with and without clocks, in four zones.
    static func league(round: Int, omitting omitted: Set<String> = [], _ random: inout SplitMix64) throws
        -> (hunts: [ScoringHunt], badges: [Badge], checkIns: [ScoredCheckIn])
    {
        let zones = try ["America/Los_Angeles", "UTC", "Asia/Kolkata", "Australia/Lord_Howe"].map {
            try #require(TimeZone(identifier: $0))
        }
        var hunts: [ScoringHunt] = []
        for h in 0..<Int.random(in: 1...4, using: &random) {
            let stops = (0..<Int.random(in: 1...5, using: &random)).map { s in
                // Now and then a stop id another hunt has too.
                (
                    id: Bool.random(using: &random) && h > 0 && s == 0 ? "h0-s0" : "h\(h)-s\(s)",
                    points: Int.random(in: 0...100, using: &random)
                )
            }
            hunts.append(
                ScoringHunt(
                    id: "h\(h)", stops: stops, bonusPoints: Int.random(in: 0...200, using: &random),
                    difficulty: Hunt.Difficulty.allCases.randomElement(using: &random)!,
                    ordered: Int.random(in: 0..<3, using: &random) == 0,
                    timeZone: zones.randomElement(using: &random)!))
        }
        let rules: [Badge.Rule] = [
            .firstCheckIn, .stopsVisited(count: Int.random(in: 1...8, using: &random)),
            .huntsCompleted(count: Int.random(in: 1...3, using: &random)), .huntCompleted(huntID: "h1"),
            .difficultyCompleted(Hunt.Difficulty.allCases.randomElement(using: &random)!),
            .timeWindow(
                fromMinute: Int.random(in: 0..<1440, using: &random),
                toMinute: Int.random(in: 0..<1440, using: &random),
                count: Int.random(in: 1...4, using: &random)
            ),
            .stopsWithin(
                count: Int.random(in: 2...5, using: &random),
                hours: Double.random(in: 0.1...30, using: &random)),
            .consecutiveDays(days: Int.random(in: 2...4, using: &random)),
        ]
        let badges = rules.filter { !omitted.contains($0.kind) }.shuffled(using: &random).enumerated().map {
            b, rule in
            Badge(id: "b\(b)", name: "B\(b)", points: Int.random(in: 0...50, using: &random), rule: rule)
        }
        let start = 1_795_000_000.0 + Double(round) * 86_400
        let checkIns = (0..<Int.random(in: 0...60, using: &random)).map { i in
            let hunt = hunts.randomElement(using: &random)!
            let stop =
                Int.random(in: 0..<10, using: &random) == 0
                ? "nowhere" : hunt.stops.randomElement(using: &random)!.id
            let time = start + Double.random(in: 0...(6 * 86_400), using: &random)
            let clock =
                Bool.random(using: &random) ? time + Double.random(in: -600...600, using: &random) : nil
            return ScoredCheckIn(
                id: Int64(i + 1), huntID: Int.random(in: 0..<8, using: &random) == 0 ? "h0" : hunt.id,
                stopID: stop, time: Date(timeIntervalSince1970: time),
                clock: clock.map(Date.init(timeIntervalSince1970:)))
        }
        return (hunts, badges, checkIns)
    }

    @Test func oneLeagueAfterAnotherScoresAsTheReference() throws {
        var random = SplitMix64(seed: 2026)
        var compared = 0
        var withBadges = 0
        for round in 0..<300 {
            let (hunts, badges, checkIns) = try Self.league(round: round, &random)
            let expected = ReferenceScoring.events(for: checkIns, hunts: hunts, badges: badges)
            #expect(Scoring.events(for: checkIns, hunts: hunts, badges: badges) == expected, "round \(round)")
            compared += 1
            if expected.contains(where: { $0.kind == .badge }) { withBadges += 1 }
        }
        #expect(compared == 300)
        #expect(withBadges > 100)  // the rounds exercised the badges, not just empty leagues
    }

    /// Incremental scoring (`Scoring.eventsAfter`): from the events of a player's check-ins so
    /// far, the next one in time order earns exactly what scoring them all gives it, on random
    /// leagues with and without badges of the hour and of days in a row (given the local days it
    /// asks for); with a badge of the hour not yet earned it declines (nil), and the caller
    /// scores them all.
    @Test func theNextCheckInScoresAloneAsAllOfThemDo() throws {
        var random = SplitMix64(seed: 18)
        var compared = 0
        var declined = 0
        var earnedSomething = 0
        var withDays = 0
        for round in 0..<300 {
            let omitted: Set<String> = round % 3 == 0 ? [] : ["time_window"]
            let (hunts, badges, checkIns) = try Self.league(round: round, omitting: omitted, &random)
            let ordered = checkIns.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            var earlier: [ScoreEvent] = []
            for k in ordered.indices {
                let all = Scoring.events(for: Array(ordered[...k]), hunts: hunts, badges: badges)
                #expect(Array(all.prefix(earlier.count)) == earlier, "round \(round): earlier events changed")
                // The local days asked for, from the earlier check-ins (as a store reads them).
                let days = Scoring.localDaysNeeded(earlier, adding: ordered[k], hunts: hunts, badges: badges)
                    .map { range in
                        Scoring.localDays(of: Array(ordered[..<k]), hunts: hunts).filter(range.contains)
                    }
                if days != nil { withDays += 1 }
                if let next = Scoring.eventsAfter(
                    earlier, adding: ordered[k], hunts: hunts, badges: badges, earlierLocalDays: days ?? [])
                {
                    #expect(next == Array(all.dropFirst(earlier.count)), "round \(round), check-in \(k)")
                    compared += 1
                    if !next.isEmpty { earnedSomething += 1 }
                } else {
                    #expect(
                        badges.contains { $0.rule.kind == "time_window" },
                        "round \(round): declined without a badge that counts every check-in")
                    declined += 1
                }
                earlier = all
            }
        }
        #expect(
            compared > 3_000 && earnedSomething > 500 && declined > 100,
            "\(compared) \(earnedSomething) \(declined)")
    }

    /// The ledger every store follows (`ScoreLedger`): a player's stored events and one to three
    /// new check-ins, its questions answered as a store answers them (every accepted check-in whose
    /// clock is in the window, the new ones included), give exactly the events of scoring them all;
    /// new check-ins earlier than one already recorded, or stored events it cannot read, make it
    /// rescore.
    @Test func theLedgerGoesOnAsScoringThemAllDoes() throws {
        var random = SplitMix64(seed: 35)
        var done = 0
        var asked = 0
        var rescored = 0
        for round in 0..<300 {
            let omitted: Set<String> = round % 3 == 0 ? [] : ["time_window"]
            let (hunts, badges, checkIns) = try Self.league(round: round, omitting: omitted, &random)
            let ordered = checkIns.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            guard ordered.count >= 2 else { continue }
            let split = Int.random(in: 1..<ordered.count, using: &random)
            let count = min(Int.random(in: 1...3, using: &random), ordered.count - split)
            let earlier = Array(ordered[..<split])
            let added = Array(ordered[split..<(split + count)])
            let stored = Scoring.events(for: earlier, hunts: hunts, badges: badges)
            let last = earlier.last!
            var ledger = ScoreLedger(
                player: PlayerID(1), added: added.shuffled(using: &random), stored: stored,
                latestEarlier: (last.time.timeIntervalSince1970, last.id), hunts: hunts, badges: badges)
            var questions = 0
            while case .ask(let question) = ledger.step {
                questions += 1
                #expect(questions < 10, "round \(round): the ledger keeps asking")
                if questions >= 10 { break }
                let inWindow = Array(ordered[..<(split + count)]).filter {
                    question.window.contains($0.clock.timeIntervalSince1970)
                }
                ledger.answer(inWindow)
            }
            asked += questions
            let all = Scoring.events(for: Array(ordered[..<(split + count)]), hunts: hunts, badges: badges)
            switch ledger.step {
            case .done(let new, let total):
                #expect(stored + new == all, "round \(round)")
                #expect(total == all)
                done += 1
            case .rescore:
                #expect(badges.contains { $0.rule.kind == "time_window" } || all.isEmpty, "round \(round)")
                rescored += 1
            case .ask:
                break
            }
            // Out of order, unreadable events, or new ones not read back: everything again.
            let late = ScoreLedger(
                player: PlayerID(1), added: [earlier[0]], stored: stored,
                latestEarlier: (last.time.timeIntervalSince1970, last.id), hunts: hunts, badges: badges)
            let unreadable = ScoreLedger(
                player: PlayerID(1), added: added, stored: nil, latestEarlier: nil, hunts: hunts,
                badges: badges)
            let missing = ScoreLedger(
                player: PlayerID(1), added: nil, stored: stored, latestEarlier: nil, hunts: hunts,
                badges: badges)
            for ledger in [late, unreadable, missing] {
                guard case .rescore = ledger.step else {
                    Issue.record("round \(round): a ledger that cannot go on did not rescore")
                    continue
                }
            }
        }
        #expect(
            done > 150 && asked > 20 && rescored > 5,
            "\(done) went on, \(asked) questions, \(rescored) rescored")
    }

    @Test func totalsAreTheEventsSums() {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let events = [
            ScoreEvent(kind: .stop, huntID: "h", stopID: "a", points: 50, at: at, checkInID: 1),
            ScoreEvent(kind: .badge, huntID: "h", badgeID: "b", points: 10, at: at, checkInID: 1),
            ScoreEvent(kind: .bonus, huntID: "h", points: 100, at: at + 60, checkInID: 2),
        ]
        #expect(
            ScoreTotals(events)
                == ScoreTotals(
                    points: 160, hunts: 1, stops: 1, badges: 1, reached: at.timeIntervalSince1970 + 60))
        #expect(ScoreTotals([]) == nil)
    }
}
