import Foundation
import Testing
import VSHCore

/// Stop codes, rotating codes (RFC 6238) and how hunt files carry them: read, checked, written
/// for organisers, and left out of what players are sent.
@Suite struct StopSecretTests {
    /// RFC 6238, Appendix B: the SHA-1 test vectors (8 digits) for the ASCII secret
    /// "12345678901234567890"; vsh's 6-digit codes are their last six digits (RFC 4226's truncation).
    @Test func totpMatchesRFC6238sTestVectors() {
        let secret = Array("12345678901234567890".utf8)
        let vectors: [(Double, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        for (time, expected) in vectors {
            let counter = TOTP.counter(at: Date(timeIntervalSince1970: time))
            #expect(TOTP.code(secret: secret, counter: counter, digits: 8) == expected, "T = \(time)")
            #expect(TOTP.code(secret: secret, counter: counter) == String(expected.suffix(6)))
        }
        // The same secret in Base32, as a hunt file and an authenticator app hold it.
        let base32 = Secret(Base32.encode(secret))
        #expect(base32.revealed == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        let now = Date(timeIntervalSince1970: 59)
        #expect(TOTP.code(secret: base32, at: now) == "287082")
        #expect(TOTP.age(of: "287082", secret: base32, at: now) == 0)
        #expect(TOTP.age(of: "287 082", secret: base32, at: now.addingTimeInterval(30)) == 1)
        #expect(TOTP.age(of: "287082", secret: base32, at: now.addingTimeInterval(60)) == 2)
        #expect(TOTP.age(of: "287083", secret: base32, at: now) == nil)
        #expect(TOTP.age(of: "28708", secret: base32, at: now) == nil)
        #expect(TOTP.age(of: "２８７０８２", secret: base32, at: now) == nil)
    }

    /// RFC 4648's Base32 test vectors, and what a person types (lower case, spaces, padding).
    @Test func base32FollowsRFC4648() {
        let vectors = [
            ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base32.decode("mzxw 6ytb-oi======") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        #expect(Base32.decode("") == nil)
        #expect(Base32.decode(String(repeating: "A", count: 2_000)) == nil)
    }

    @Test func stopCodesAreCheckedAndForgiveHowPeopleTypeThem() {
        let made = StopCode.make()
        #expect(made.count == StopCode.madeLength && StopCode.problem(made) == nil)
        #expect(made.allSatisfy { !"0O1I".contains($0) })
        #expect(StopCode.problem("K7MQR2X") != nil)
        #expect(StopCode.problem("K7MQR2X0") != nil)
        let code = Secret("K7MQR2XWHT")
        #expect(StopCode.matches("k7mq-r2xw ht", code))
        #expect(!StopCode.matches("K7MQR2XWHU", code))
        #expect(!StopCode.matches("K7MQR2XWH", code))
        // A secret prints as a mask: no log line or interpolation carries it.
        #expect("\(code)" == "(secret)" && String(reflecting: code) == "(secret)")
    }

    @Test func huntFilesCarryCodesForOrganisersAndNoneForPlayers() throws {
        let secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        let hunt = try read(
            huntText(
                properties:
                    #""name": "Sphere Atrium", "points": 40, "proof": ["code"], "code": "k7mq-r2xw-ht", "rotating_code": {"secret": "\#(secret.lowercased())"}"#
            )
        ).get()
        #expect(hunt.stops[0].code == Secret("K7MQR2XWHT"))
        #expect(hunt.stops[0].rotatingCode == .secret(Secret(secret)))
        #expect(hunt.stops[0].proof == [.code])
        // Written back for the organiser: the same file reads back the same.
        let text = HuntFile.text(of: hunt)
        #expect(text.contains("K7MQR2XWHT") && text.contains(secret))
        #expect(try read(text).get() == hunt)
        // What players are sent: no code, no secret, and a flag that the stop takes one.
        let forPlayers = JSONValue.object(HuntFile.document(of: hunt, forPlayers: true)).compactText
        #expect(!forPlayers.contains("K7MQR2XWHT") && !forPlayers.contains(secret))
        #expect(forPlayers.contains(#""has_code":true"#) && forPlayers.contains(#""proof":["code"]"#))
        // `true`: vsh makes the secret at publish.
        let later = try read(huntText(properties: #""name": "S", "points": 1, "rotating_code": true"#)).get()
        #expect(later.stops[0].rotatingCode == .madeAtPublish)
        #expect(HuntFile.text(of: later).contains(#""rotating_code": true"#))
    }

    @Test func badCodesAreNamedByFieldAndStop() {
        let cases: [(String, String)] = [
            (#""code": "ABC""#, #""code" must be 8 to 32 letters and digits (it has 3)"#),
            (#""code": "ABCDEFG0""#, #"holds "0""#),
            (#""rotating_code": {"secret": "not base32!"}"#, #""rotating_code.secret" must be Base32"#),
            (#""rotating_code": {"secret": "JBSWY3DP"}"#, "is 40 bits; a secret needs at least 128"),
            (#""rotating_code": {"key": "JBSWY3DP"}"#, #"unknown field "rotating_code.key""#),
            (#""rotating_code": "yes""#, #""rotating_code" must be true, or an object with its "secret""#),
            (#""proof": ["code"]"#, #"lists "code", but the stop has no "code" or "rotating_code""#),
            (#""proof": ["qr"]"#, #""photo", "fix", "code""#),
        ]
        for (extra, expected) in cases {
            let found = messages(huntText(properties: #""name": "S", "points": 1, \#(extra)"#))
            #expect(found.count == 1 && found[0].contains(expected), "\(extra): \(found)")
            #expect(found.first?.contains("the-stop") == true, "\(found)")
        }
    }

    /// A stop's question: read, written for organisers with its answers and for players without,
    /// kept in the database's secrets column, and every mistake named by its field and stop.
    @Test func questionsAreReadCheckedAndKeptFromPlayers() throws {
        let text = huntText(
            properties:
                #""name": "S", "points": 1, "question": "How many jets?", "answers": [1214, {"number": 1998, "tolerance": 1}, "twelve fourteen"], "answer_points": 15, "attempts": 2, "proof": ["answer"]"#
        )
        let hunt = try read(text).get()
        let question = try #require(hunt.stops[0].question)
        #expect(
            question.answers == [
                .number(1214, tolerance: 0), .number(1998, tolerance: 1), .text("twelve fourteen"),
            ])
        #expect(question.points == 15 && question.attempts == 2 && hunt.stops[0].requires(.answer, in: hunt))
        #expect(try read(HuntFile.text(of: hunt)).get() == hunt)
        #expect("\(question)".contains("(secret)") && !"\(question)".contains("1214"))
        let players = JSONValue.object(HuntFile.document(of: hunt, forPlayers: true)).compactText
        #expect(players.contains("How many jets?") && players.contains(#""attempts":2"#))
        #expect(!players.contains("1214") && !players.contains("twelve") && !players.contains(#""answers""#))
        var stored = hunt.stops[0]
        stored.question = nil
        StoredStopSecrets.apply(StoredStopSecrets.text(for: hunt.stops[0], previous: nil), to: &stored)
        #expect(stored.question == question)
        #expect(
            StoredStopSecrets.answerPoints(StoredStopSecrets.text(for: hunt.stops[0], previous: nil)) == 15)

        let cases: [(String, String)] = [
            (#""question": "How many jets?""#, #"missing required field "answers""#),
            (#""question": "Q?", "answers": []"#, "a question needs at least one answer"),
            (#""question": "Q?", "answers": [true]"#, "lists what counts as right"),
            (#""question": "Q?", "answers": ["!!"]"#, "lists what counts as right"),
            (#""answers": ["Bellagio"]"#, #"belongs to a "question", and the stop asks none"#),
            (#""question": "", "answers": ["A"]"#, #""question" must be 1 to 300 characters"#),
            (#""question": "Q?", "choices": ["A"], "answers": ["A"]"#, "must list 2 to 8 choices (it has 1)"),
            (#""question": "Q?", "choices": ["A", "a"], "answers": ["A"]"#, "lists the same choice twice"),
            (
                #""question": "Q?", "choices": ["A", "B"], "answers": ["C"]"#,
                #"holds "C", which is not one of the choices"#
            ),
            (
                #""question": "Q?", "answers": [{"number": 3, "tolerance": -1}]"#,
                "must be a number of 0 or more"
            ),
            (#""question": "Q?", "answers": [{"value": 3}]"#, #"unknown field "answers.value""#),
            (
                #""question": "Q?", "answers": ["A"], "attempts": 11"#,
                #""attempts" is 11; it must be in 1...10"#
            ),
            (#""proof": ["answer"]"#, #"lists "answer", but the stop asks no "question""#),
        ]
        for (extra, expected) in cases {
            let found = messages(huntText(properties: #""name": "S", "points": 1, \#(extra)"#))
            #expect(found.count == 1 && found[0].contains(expected), "\(extra): \(found)")
            #expect(found.first?.contains("the-stop") == true, "\(found)")
        }
    }

    /// A hunt's `proof` as a list: what every stop asks for, read, checked, written and kept as
    /// databases keep it.
    @Test func aHuntsProofListIsWhatEveryStopAsksFor() throws {
        let hunt = try read(
            huntText(
                extraHunt: #", "proof": ["code", "photo"]"#,
                properties: #""name": "S", "points": 1, "code": "K7MQR2XWHT""#)
        ).get()
        #expect(hunt.proof == .photo && hunt.stopsProof == [.code])
        #expect(hunt.stops[0].requires(.code, in: hunt) && hunt.stops[0].requires(.photo, in: hunt))
        #expect(!hunt.stops[0].requires(.fix, in: hunt) && !hunt.stops[0].requires(.code, in: nil))
        #expect(HuntFile.text(of: hunt).contains(#""proof": ["#))
        #expect(try read(HuntFile.text(of: hunt)).get() == hunt)
        #expect(hunt.proofText == "photo,code")
        var stored = Hunt(id: "x", name: "X")
        stored.setProof(text: hunt.proofText)
        #expect(stored.proof == .photo && stored.stopsProof == [.code])
        stored.setProof(text: "any")
        #expect(stored.proof == .any && stored.stopsProof.isEmpty)
        // Every stop needs a code then; a list of unknown things is an error.
        let missing = messages(huntText(extraHunt: #", "proof": ["code"]"#))
        #expect(
            missing.count == 1 && missing[0].contains(#"the hunt's proof lists "code", but the stop has no"#),
            "\(missing)")
        #expect(messages(huntText(extraHunt: #", "proof": ["qr"]"#)).count == 1)
        #expect(messages(huntText(extraHunt: #", "proof": "everything""#)).count == 1)
    }

    @Test func twoStopsCannotShareAPrintedCode() {
        func source(_ id: String, stop: String) -> HuntCatalog.Source {
            HuntCatalog.Source(
                path: "\(id).geojson", expectedID: id,
                bytes: Array(
                    huntText(
                        id: id, stopID: stop, properties: #""name": "S", "points": 1, "code": "K7MQR2XWHT""#
                    )
                    .utf8))
        }
        let result = HuntCatalog.build(
            [source("one", stop: "a"), source("two", stop: "b")], badges: nil, inspector: FixedInspector())
        guard case .failure(let errors) = result else {
            Issue.record("two stops with one code were accepted")
            return
        }
        #expect(errors.errors.map(\.description).contains { $0.contains(#"is the code of stop "a" too"#) })
    }

    @Test func aStopsInteriorPointIsInsideItEvenWhenItIsConcave() throws {
        // A U shape: the middle of its bounding box is in the notch, outside.
        let u = [
            (36.080, -115.170), (36.080, -115.160), (36.090, -115.160), (36.090, -115.163),
            (36.083, -115.163), (36.083, -115.167), (36.090, -115.167), (36.090, -115.170),
            (36.080, -115.170),
        ].map { Coordinate(unchecked: $0.0, $0.1) }
        let fence = Geofence(Polygon(shell: try LinearRing(u)))
        let point = fence.interiorPoint
        let index = GeofenceIndex(stops: [
            Stop(id: "u", huntID: "h", name: "U", points: 1, geofence: fence)
        ])
        guard case .covered(let found) = index.covering(latitude: point.latitude, longitude: point.longitude)
        else {
            Issue.record("\(point) is not decided inside")
            return
        }
        #expect(found == [0], "\(point)")
        #expect(!(point.latitude > 36.083 && point.longitude > -115.167 && point.longitude < -115.163))
    }
}
