import Foundation

/// A question asked at a stop (`question` in a hunt file's stop), answered with a check-in
/// (`answer`): what only someone standing there can read off a plaque, a sign or a screen. Its
/// answers are secrets: players are sent the question, its choices, its points and how many
/// tries it allows, never what is right. It has no `Encodable` conformance and prints without
/// its answers.
public struct StopQuestion: Sendable, Hashable, CustomStringConvertible {
    /// One accepted answer.
    public enum Answer: Sendable, Hashable, CustomStringConvertible {
        /// A text, compared folded (`StopQuestion.fold`): case, accents, spaces and punctuation
        /// do not count.
        case text(String)
        /// A number, within `tolerance` either side (0: exactly).
        case number(Double, tolerance: Double)

        /// A mask: never the answer.
        public var description: String { "(secret)" }
    }

    /// The question as players read it.
    public var text: String
    /// The choices players pick from (2 to `maxChoices`), or empty for an answer they type.
    public var choices: [String]
    /// What counts as right (one of them is enough).
    public var answers: [Answer]
    /// Points for a right answer, on top of the stop's (`answer_points`).
    public var points: Int
    /// How many answers a player may give (`attempts`): the next is refused.
    public var attempts: Int

    /// Tries allowed when the hunt file does not say.
    public static let defaultAttempts = 3
    /// The most tries a question may allow.
    public static let maxAttempts = 10
    /// The most choices.
    public static let maxChoices = 8
    /// The most answers a question may accept.
    public static let maxAnswers = 20
    /// The longest question, answer or choice, in characters; a longer answer is refused unread.
    public static let maxLength = 300

    /// A question from its parts.
    public init(
        text: String, choices: [String] = [], answers: [Answer], points: Int = 0,
        attempts: Int = defaultAttempts
    ) {
        self.text = text
        self.choices = choices
        self.answers = answers
        self.points = points
        self.attempts = attempts
    }

    /// The question without its answers.
    public var description: String { "question \"\(text)\" (answers: (secret))" }

    /// Whether `typed` is right: a choice when the question has choices (the chosen one must be
    /// among the answers), else a text equal to an answer once both are folded, or a number
    /// within an answer's tolerance.
    public func accepts(_ typed: String) -> Bool {
        guard typed.count <= Self.maxLength else { return false }
        let folded = Self.fold(typed)
        guard !folded.isEmpty else { return false }
        if !choices.isEmpty, !choices.contains(where: { Self.fold($0) == folded }) { return false }
        let number = Self.number(typed)
        return answers.contains { answer in
            switch answer {
            case .text(let text): return Self.fold(text) == folded
            case .number(let value, let tolerance):
                guard let number else { return false }
                return abs(number - value) <= tolerance + 1e-9 * max(1, abs(value))
            }
        }
    }

    /// `text` as answers are compared: lower case, accents and other marks dropped, and only
    /// letters and digits kept ("The Bellagio!" and "the bellagio" are both "thebellagio").
    public static func fold(_ text: String) -> String {
        let plain = text.folding(
            options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var kept = String.UnicodeScalarView()
        for scalar in plain.lowercased().unicodeScalars
        where scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
            kept.append(scalar)
        }
        return String(kept)
    }

    /// The number a person typed ("1998", " 1,998 ", "3.5", "3,5", "-2"), or nil when it is not
    /// one: a comma followed by exactly three digits groups thousands, another comma is a
    /// decimal point.
    public static func number(_ typed: String) -> Double? {
        var text = typed.filter { !$0.isWhitespace && $0 != "_" && $0 != "\u{2009}" && $0 != "'" }
        guard !text.isEmpty, text.count <= 40 else { return nil }
        if text.contains(".") {
            text.removeAll { $0 == "," }
        } else if text.contains(",") {
            let groups = text.split(separator: Character(","), omittingEmptySubsequences: false)
            if groups.dropFirst().allSatisfy({ $0.count == 3 }) {
                text.removeAll { $0 == "," }
            } else if groups.count == 2 {
                text = text.replacingOccurrences(of: ",", with: ".")
            } else {
                return nil
            }
        }
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }
}

/// What a player has done with the questions of one hunt's stops so far, for `answer`.
public struct AnswerTries: Sendable, Hashable {
    /// Wrong answers given at the stop (in any check-in the rules went on to judge).
    public var wrong: Int
    /// Whether an accepted (or pending) check-in already answered it right.
    public var right: Bool

    /// Tries from their parts.
    public init(wrong: Int = 0, right: Bool = false) {
        self.wrong = wrong
        self.right = right
    }
}
