import Foundation

/// A check-in's answer as kept under its retry key: without its rules, which the check-in's own row
/// holds (`checkins.rules`, append-only), and the place they go back in.
///
/// The rules are about 1.1 KB of an answer's 1.4 KB; kept twice, they were a third of the bytes a
/// device-fix check-in added to the league.
struct RulesInAnswer: Equatable {
    /// The answer to keep: the whole answer, or the answer with the rules cut out.
    let answer: String
    /// How many characters (Unicode scalars, as SQLite's `substr` counts) of `answer` come before
    /// the rules; nil when the answer is kept whole.
    let rulesAt: Int?

    /// What to keep of `answer`, whose `"rules":` value is `rules` (the text `checkins.rules`
    /// holds); the answer is kept whole when it does not hold `rules` there.
    init(answer: String, rules: String) {
        var answer = answer
        var rules = rules
        let found: (at: Int, scalars: Int)? = answer.withUTF8 { text in
            rules.withUTF8 { rules in Self.find(rules, in: text) }
        }
        guard let found, !rules.isEmpty else {
            self.answer = answer
            self.rulesAt = nil
            return
        }
        let bytes = Array(answer.utf8)
        self.answer = String(
            decoding: bytes[..<found.at] + bytes[(found.at + rules.utf8.count)...], as: UTF8.self)
        self.rulesAt = found.scalars
    }

    /// Where `rules` starts in `text`, in bytes and in Unicode scalars, if it follows the first
    /// `"rules":` (which only the answer's own key can be: a quote inside a JSON string is escaped).
    static func find(_ rules: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>)
        -> (at: Int, scalars: Int)?
    {
        let key: StaticString = #""rules":"#
        guard let base = text.baseAddress, let wanted = rules.baseAddress else { return nil }
        var from = 0
        // Each quote in turn (`memchr`), until one starts the key.
        while let quote = memchr(base + from, 0x22, text.count - from) {
            let i = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
            let at = i + key.utf8CodeUnitCount
            guard text.count - i >= key.utf8CodeUnitCount else { return nil }
            if memcmp(base + i, key.utf8Start, key.utf8CodeUnitCount) == 0 {
                guard text.count - at >= rules.count, memcmp(base + at, wanted, rules.count) == 0 else {
                    return nil
                }
                // Continuation bytes (10xxxxxx) do not start a scalar.
                var scalars = 0
                for byte in text[..<at] where byte & 0xC0 != 0x80 { scalars += 1 }
                return (at, scalars)
            }
            from = i + 1
        }
        return nil
    }

    /// The kept answer of `idempotency_keys k`, with its check-in's rules put back in (SQL).
    static let keptAnswer = """
        CASE WHEN k.rules_at IS NULL THEN k.answer
            ELSE substr(k.answer, 1, k.rules_at) || (SELECT c.rules FROM checkins c WHERE c.id = k.checkin_id)
                || substr(k.answer, k.rules_at + 1)
        END
        """
}
