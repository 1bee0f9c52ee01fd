import Foundation
import Testing
import VSHCore
import VSHEngine

/// Codes at a stop: `CodePlacement` (which stop a check-in means, and when its code stands in for
/// the GPS) and the `code` rule, on in-memory facts: a casino floor without GPS, printed and
/// rotating codes, another stop's code, a leaked code far from the stop.
@Suite struct StopCodeRuleTests {
    static let secret = Secret("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
    static let lobbyCode = "PPPPQQQQRR"
    static var atrium: Stop {
        var stop = Stop(id: "atrium", huntID: "h", name: "Sphere Atrium", points: 40, geofence: plaza)
        stop.code = Secret("K7MQR2XWHT")
        stop.rotatingCode = .secret(secret)
        return stop
    }
    static var lobby: Stop {
        var stop = Stop(id: "lobby", huntID: "h", name: "Lobby", points: 20, geofence: plaza)
        stop.code = Secret(lobbyCode)
        return stop
    }
    static var indoorHunt: Hunt { Hunt(id: "h", name: "Indoors", stops: [atrium, lobby]) }

    /// Decides `submission` as a store would: the facts of where its (possibly moved) fix is.
    func decide(_ submission: Submission, stopID: String? = nil, code: String?) throws -> Decision {
        let placed = try CodePlacement.place(submission, stopID: stopID, code: code, in: [Self.indoorHunt])
        let inside = placed.reportedPosition.map { plazaCovers($0) } ?? false
        let stops = inside ? [Self.atrium, Self.lobby] : []
        let facts = CheckInFacts(
            hunt: Self.indoorHunt, coveringStops: stops,
            nearestStop: inside ? nil : (Self.atrium, 5_000))
        return Verifier().evaluate(placed, facts: facts)
    }

    func plazaCovers(_ p: Coordinate) -> Bool {
        (36.0800...36.0810).contains(p.latitude) && (-115.1730 ... -115.1720).contains(p.longitude)
    }

    func codeOnly(_ code: String, stop: String? = nil, at time: Date = now) throws -> Decision {
        let submission = try CodePlacement.codeOnly(
            player: PlayerID(1), stopID: stop, code: code, huntID: nil, in: [Self.indoorHunt], now: time)
        let facts = CheckInFacts(hunt: Self.indoorHunt, coveringStops: [Self.atrium, Self.lobby])
        return Verifier().evaluate(submission, facts: facts)
    }

    @Test func anIndoorCheckInWithNoFixIsPlacedByThePrintedCode() throws {
        let decision = try codeOnly("k7mq-r2xw-ht")
        #expect(decision.verdict == .accepted, "\(decision.rules)")
        #expect(decision.stop?.id == "atrium" && decision.points == 40)
        let position = decision.rules.first { $0.rule == .position }
        #expect(position?.detail.contains("the code of Sphere Atrium stands in for it") == true)
        let code = decision.rules.first { $0.rule == .code }
        #expect(code?.outcome == .passed && code?.detail.contains("where GPS could not") == true)
        // The fix recorded is inside the stop, taken when the check-in arrived.
        #expect(decision.fix.map { plazaCovers($0.position) && $0.accuracyMeters == 0 } == true)
    }

    @Test func aWrongCodeOrAnotherStopsCodeIsRejected() throws {
        #expect(throws: SubmissionError.codeNamesNoStop) { try codeOnly("ABCDEFGHJK") }
        let wrong = try codeOnly("ABCDEFGHJK", stop: "atrium")
        #expect(wrong.verdict == .rejected)
        #expect(wrong.rules.first { $0.rule == .code }?.detail == "that is not the code of Sphere Atrium")
        // The lobby's code, sent for the atrium (the two fences overlap here).
        let other = try codeOnly("PPPPQQQQRR", stop: "atrium")
        #expect(other.verdict == .rejected && other.stop?.id == "atrium")
        // A player at the atrium by GPS who brings the lobby's code.
        let gps = try decide(device(36.0805, -115.1725), stopID: "atrium", code: "PPPPQQQQRR")
        #expect(gps.verdict == .rejected && result(gps, .code) == .failed)
    }

    @Test func aRotatingCodeIsGoodForTheCurrentAndThePreviousStepOnly() throws {
        let counter = TOTP.counter(at: now)
        let key = Base32.decode(Self.secret.revealed)!
        func code(stepsBack: Int64) -> String { TOTP.code(secret: key, counter: counter - stepsBack) }
        #expect(try codeOnly(code(stepsBack: 0), stop: "atrium").verdict == .accepted)
        #expect(try codeOnly(code(stepsBack: 1), stop: "atrium").verdict == .accepted)
        let old = try codeOnly(code(stepsBack: 2), stop: "atrium")
        #expect(old.verdict == .rejected)
        #expect(old.rules.first { $0.rule == .code }?.detail.contains("a code lasts a minute") == true)
        // A screen's code names no stop by itself: the check-in must say which.
        #expect(throws: SubmissionError.codeNamesNoStop) { try codeOnly(code(stepsBack: 0)) }
        // The same code is still good for the next player at the same screen.
        let next = try CodePlacement.codeOnly(
            player: PlayerID(2), stopID: "atrium", code: code(stepsBack: 0), huntID: nil,
            in: [Self.indoorHunt], now: now)
        #expect(
            Verifier().evaluate(
                next, facts: CheckInFacts(hunt: Self.indoorHunt, coveringStops: [Self.atrium])
            ).verdict == .accepted)
    }

    @Test func aCodeReplacesIndoorGPSNearTheStopButNotAFixFarAway() throws {
        // 150 m south of the fence, 120 m accuracy: a casino floor's GPS.
        let near = try decide(device(36.0787, -115.1725, accuracy: 120), stopID: "atrium", code: "K7MQR2XWHT")
        #expect(near.verdict == .accepted, "\(near.rules)")
        // 5 km away: a leaked code does not move the player.
        let far = try decide(device(36.1255, -115.1725), stopID: "atrium", code: "K7MQR2XWHT")
        #expect(far.verdict == .rejected && result(far, .atStop) == .failed && result(far, .code) == .skipped)
    }

    @Test func aStopThatAsksForItsCodeRefusesACheckInWithoutIt() throws {
        var atrium = Self.atrium
        atrium.proof = [.code]
        let hunt = Hunt(id: "h", name: "Indoors", stops: [atrium])
        let facts = CheckInFacts(hunt: hunt, coveringStops: [atrium])
        let without = Verifier().evaluate(device(36.0805, -115.1725), facts: facts)
        #expect(without.verdict == .rejected)
        #expect(without.rules.first { $0.rule == .code }?.detail.contains("asks for its code") == true)
        var with = device(36.0805, -115.1725)
        with.code = "K7MQR2XWHT"
        #expect(Verifier().evaluate(with, facts: facts).verdict == .accepted)
        // A stop without codes skips the rule.
        #expect(
            result(
                Verifier().evaluate(
                    device(36.0805, -115.1725), facts: CheckInFacts(hunt: hunt, coveringStops: [stopA])),
                .code) == .skipped)
    }

    @Test func aHuntThatAsksEveryStopForItsCodeRefusesACheckInWithout() throws {
        var hunt = Self.indoorHunt
        hunt.stopsProof = [.code]
        let facts = CheckInFacts(hunt: hunt, coveringStops: [Self.lobby])
        let without = Verifier().evaluate(device(36.0805, -115.1725), facts: facts)
        #expect(without.verdict == .rejected && result(without, .code) == .failed)
        var with = device(36.0805, -115.1725)
        with.code = Self.lobbyCode
        #expect(Verifier().evaluate(with, facts: facts).verdict == .accepted)
        // Asking every stop for the phone's position: a code alone places no one.
        hunt.stopsProof = [.fix]
        #expect(throws: SubmissionError.codeCannotPlace(stop: "Lobby")) {
            try CodePlacement.codeOnly(
                player: PlayerID(1), stopID: nil, code: Self.lobbyCode, huntID: nil, in: [hunt], now: now)
        }
    }

    @Test func aCodeNeverStandsInForAPhotoTheHuntAsksFor() throws {
        var hunt = Self.indoorHunt
        hunt.proof = .photo
        let submission = try CodePlacement.codeOnly(
            player: PlayerID(1), stopID: nil, code: "K7MQR2XWHT", huntID: nil, in: [hunt], now: now)
        let decision = Verifier().evaluate(
            submission, facts: CheckInFacts(hunt: hunt, coveringStops: [Self.atrium]))
        #expect(decision.verdict == .rejected && result(decision, .uniquePhoto) == .failed)
    }

    @Test func aStopThatAsksForThePhonesPositionTakesNoCodeInItsPlace() throws {
        var atrium = Self.atrium
        atrium.proof = [.fix, .code]
        let hunt = Hunt(id: "h", name: "Indoors", stops: [atrium])
        #expect(throws: SubmissionError.codeCannotPlace(stop: "Sphere Atrium")) {
            try CodePlacement.codeOnly(
                player: PlayerID(1), stopID: nil, code: "K7MQR2XWHT", huntID: nil, in: [hunt], now: now)
        }
        #expect(throws: SubmissionError.unknownStop("nowhere")) {
            try CodePlacement.stop(named: "nowhere", code: nil, in: [hunt])
        }
        #expect(try CodePlacement.stop(named: nil, code: nil, in: [hunt]) == nil)
    }
}
