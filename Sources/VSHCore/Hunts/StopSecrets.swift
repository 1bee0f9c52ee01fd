internal import Crypto
public import Foundation

/// A value players must never see: a stop's printed code, a rotating code's secret. It has no
/// `Encodable` conformance and prints as a mask, so no JSON shape or log line carries it by
/// accident; the code that must write it (hunt files for organisers, the database) asks for
/// `revealed` by name.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The value itself, for the few places that must store, print for organisers or compare it.
    public let revealed: String

    /// A secret holding `value`.
    public init(_ value: String) { revealed = value }

    /// A mask: never the value.
    public var description: String { "(secret)" }
    /// A mask: never the value.
    public var debugDescription: String { "(secret)" }
}

/// Printed stop codes: what a QR code or a sign at a stop carries, typed or scanned by a player
/// as proof that they stood there. The join codes' alphabet (capital letters and digits without
/// look-alikes; lower case, spaces and hyphens are forgiven), at least `minLength`.
public enum StopCode {
    /// The shortest code: 31^8 is about 850 billion.
    public static let minLength = 8
    /// The longest code.
    public static let maxLength = 32
    /// The length of the codes vsh makes: 31^10, about 8 × 10^14.
    public static let madeLength = 10

    /// A new random code of `madeLength` characters.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<madeLength).map { _ in JoinCode.alphabet.randomElement(using: &generator)! })
    }

    /// A code as a person typed it, in its one form (upper case, no spaces or hyphens).
    public static func normalized(_ typed: String) -> String { JoinCode.normalized(typed) }

    /// Why `code` (normalized) cannot be a stop code, or nil when it can.
    public static func problem(_ code: String) -> String? {
        if code.count < minLength || code.count > maxLength {
            return "must be \(minLength) to \(maxLength) letters and digits (it has \(code.count))"
        }
        if let bad = code.first(where: { !JoinCode.alphabet.contains($0) }) {
            return
                "holds \"\(bad)\": use capital letters and digits without look-alikes (no 0, O, 1, I)"
        }
        return nil
    }

    /// Whether `typed` is `code`, compared in constant time for codes of one length.
    public static func matches(_ typed: String, _ code: Secret) -> Bool {
        constantTimeEqual(Array(normalized(typed).utf8), Array(code.revealed.utf8))
    }
}

/// A stop's rotating code (`rotating_code` in a hunt file): a screen at the stop shows a code
/// that changes every `TOTP.step` seconds, derived from a secret by RFC 6238 (so an
/// authenticator app holding the secret can stand in for the screen).
public enum RotatingCode: Hashable, Sendable {
    /// `true` in the file: vsh makes the secret when the hunt is published and keeps it, revision
    /// after revision.
    case madeAtPublish
    /// The secret, in RFC 4648 Base32 (`{"secret": "..."}` in the file).
    case secret(Secret)

    /// The secret, once there is one.
    public var secret: Secret? {
        if case .secret(let secret) = self { return secret }
        return nil
    }

    /// A new secret: 20 random bytes (160 bits, RFC 4226's recommendation) in Base32.
    public static func makeSecret() -> Secret {
        var generator = SystemRandomNumberGenerator()
        return Secret(Base32.encode((0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    /// The token of the screen link of `stop` (`/display/STOP?token=…`): 128 bits of
    /// HMAC-SHA-256 under the stop's secret, in Base32. It lets a screen read the stop's codes and
    /// nothing else, tells nothing of the secret, and stops working when the secret changes.
    public static func displayToken(secret: Secret, stop: String) -> String? {
        guard let key = Base32.decode(secret.revealed) else { return nil }
        let mac = HMAC<Crypto.SHA256>.authenticationCode(
            for: Array("vsh display \(stop)".utf8), using: SymmetricKey(data: key))
        return Base32.encode(Array(Array(mac).prefix(16)))
    }

    /// Whether `typed` is the display token of `stop`, compared in constant time.
    public static func isDisplayToken(_ typed: String, secret: Secret, stop: String) -> Bool {
        guard let token = displayToken(secret: secret, stop: stop) else { return false }
        return constantTimeEqual(Array(typed.utf8), Array(token.utf8))
    }

    /// The fewest secret bytes a hunt file may give: RFC 4226 asks for 128 bits.
    public static let minSecretBytes = 16

    /// Why `text` cannot be a rotating code's secret, or nil when it can.
    public static func problem(_ text: String) -> String? {
        guard let bytes = Base32.decode(text) else {
            return "must be Base32 (letters A to Z and digits 2 to 7, as authenticator apps take them)"
        }
        if bytes.count < minSecretBytes {
            return
                "is \(bytes.count * 8) bits; a secret needs at least \(minSecretBytes * 8) (leave it out and write true: vsh makes one)"
        }
        return nil
    }
}

/// RFC 6238 time-based one-time passwords with the parameters of vsh's rotating codes: HMAC-SHA-1,
/// 6 digits, 30-second steps from the Unix epoch.
public enum TOTP {
    /// Seconds a code lasts.
    public static let step: Double = 30
    /// Digits of a code.
    public static let digits = 6

    /// The step number at `time`.
    public static func counter(at time: Date) -> Int64 {
        Int64((time.timeIntervalSince1970 / step).rounded(.down))
    }

    /// The code of step `counter` (RFC 4226's HOTP with `digits` digits).
    public static func code(secret: [UInt8], counter: Int64, digits: Int = TOTP.digits) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        var value = UInt64(bitPattern: counter)
        for index in stride(from: 7, through: 0, by: -1) {
            message[index] = UInt8(value & 0xff)
            value >>= 8
        }
        let mac = Array(
            HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let number = String(binary % modulus)
        return String(repeating: "0", count: digits - number.count) + number
    }

    /// The code shown at `time`.
    public static func code(secret: Secret, at time: Date) -> String? {
        Base32.decode(secret.revealed).map { code(secret: $0, counter: counter(at: time)) }
    }

    /// How many steps old `typed` is at `now` (0: the current code, 1: the previous one), looking
    /// back `lookback` steps; nil when it is none of them. Spaces a person types are ignored.
    public static func age(of typed: String, secret: Secret, at now: Date, lookback: Int = 10) -> Int? {
        guard let key = Base32.decode(secret.revealed) else { return nil }
        let digitsOnly = typed.filter { $0 != " " && $0 != "-" }
        guard digitsOnly.count == digits, digitsOnly.allSatisfy(\.isASCII), digitsOnly.allSatisfy(\.isNumber)
        else { return nil }
        let current = counter(at: now)
        for back in 0...lookback
        where constantTimeEqual(
            Array(code(secret: key, counter: current - Int64(back)).utf8), Array(digitsOnly.utf8))
        {
            return back
        }
        return nil
    }
}

/// RFC 4648 Base32 (the alphabet A-Z, 2-7), as authenticator apps take secrets.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in Base32, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text` (case, spaces, hyphens and `=` padding forgiven); nil when it holds
    /// anything else or is empty or longer than 1,024 characters.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 1_024 else { return nil }
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.uppercased().utf8 where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "-") {
            if byte == UInt8(ascii: "=") { continue }
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output.isEmpty ? nil : output
    }
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

/// How the database keeps a stop's secrets: one JSON text column (`stops.secrets`), the same in
/// every backend. A rotating code the file leaves to vsh (`true`) is given its secret here, at
/// publish: the one the stop already had, so that a screen set up at the venue keeps working
/// revision after revision, else a new one.
public enum StoredStopSecrets {
    /// The column's text for `stop` (nil when it has no secret); `previous` is the column's text
    /// for the same stop before this publication.
    public static func text(for stop: Stop, previous: String?) -> String? {
        var fields: JSONObject = [:]
        if let code = stop.code { fields["code"] = .string(code.revealed) }
        switch stop.rotatingCode {
        case nil: break
        case .secret(let secret)?: fields["rotating_secret"] = .string(secret.revealed)
        case .madeAtPublish?:
            var kept: Secret?
            if let previous, case .object(let old)? = try? JSONValue.parse(Array(previous.utf8)),
                case .string(let text)? = old["rotating_secret"]
            {
                kept = Secret(text)
            }
            fields["rotating_secret"] = .string((kept ?? RotatingCode.makeSecret()).revealed)
        }
        if let question = stop.question { fields["question"] = .object(json(question)) }
        return fields.members.isEmpty ? nil : JSONValue.object(fields).compactText
    }

    /// `stop` with the secrets of the column's `text`.
    public static func apply(_ text: String?, to stop: inout Stop) {
        guard let text, case .object(let fields)? = try? JSONValue.parse(Array(text.utf8)) else { return }
        if case .string(let code)? = fields["code"] { stop.code = Secret(code) }
        if case .string(let secret)? = fields["rotating_secret"] {
            stop.rotatingCode = .secret(Secret(secret))
        }
        if case .object(let question)? = fields["question"] { stop.question = self.question(question) }
    }

    /// The points of the question kept in the column's `text`, when it has one worth points
    /// (scoring reads only these of a stop's secrets).
    public static func answerPoints(_ text: String?) -> Int? {
        guard let text, text.contains("\"question\""),
            case .object(let fields)? = try? JSONValue.parse(Array(text.utf8)),
            case .object(let question)? = fields["question"],
            case .number(let points, _)? = question["points"], points > 0
        else { return nil }
        return Int(points)
    }

    static func json(_ question: StopQuestion) -> JSONObject {
        [
            "text": .string(question.text), "choices": .array(question.choices.map { .string($0) }),
            "answers": .array(
                question.answers.map { answer in
                    switch answer {
                    case .text(let text): return .object(["text": .string(text)])
                    case .number(let value, let tolerance):
                        return .object(["number": .double(value), "tolerance": .double(tolerance)])
                    }
                }),
            "points": .int(question.points), "attempts": .int(question.attempts),
        ]
    }

    static func question(_ fields: JSONObject) -> StopQuestion? {
        guard case .string(let text)? = fields["text"] else { return nil }
        var question = StopQuestion(text: text, answers: [])
        if case .array(let choices)? = fields["choices"] {
            question.choices = choices.compactMap { if case .string(let c) = $0 { c } else { nil } }
        }
        if case .array(let answers)? = fields["answers"] {
            for case .object(let answer) in answers {
                if case .string(let text)? = answer["text"] {
                    question.answers.append(.text(text))
                } else if case .number(let value, _)? = answer["number"] {
                    var tolerance = 0.0
                    if case .number(let given, _)? = answer["tolerance"] { tolerance = given }
                    question.answers.append(.number(value, tolerance: tolerance))
                }
            }
        }
        if case .number(let points, _)? = fields["points"] { question.points = Int(points) }
        if case .number(let attempts, _)? = fields["attempts"] { question.attempts = Int(attempts) }
        return question
    }
}
