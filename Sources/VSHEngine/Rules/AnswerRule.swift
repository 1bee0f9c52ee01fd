import Foundation
public import VSHCore

/// `answer`: the answer to the stop's question (`question`, `answers`), judged only when every
/// rule before it let the check-in stand, so a try is spent only at the stop. A right answer
/// earns the question's points on top of the stop's, once; a wrong one costs one of its tries
/// (`attempts`), and an answer beyond them is refused. Where the stop asks for the answer
/// (`proof: ["answer"]`) a wrong or missing one rejects the check-in; elsewhere the check-in
/// stands and the answer only wins or misses its points.
public struct AnswerRule: VerificationRule {
    /// The rule's name in verdicts.
    public let rule = Rule.answer

    /// The rule.
    public init() {}

    /// This rule's result for the check-in in `context`.
    public func check(_ context: inout VerificationContext) -> RuleResult {
        let submission = context.submission
        guard let stop = context.stop else { return RuleResult(rule, .skipped, "no stop") }
        let typed = submission.answer?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard let question = stop.question else {
            return RuleResult(
                rule, .skipped, typed.isEmpty ? "no question here" : "\(stop.name) asks no question")
        }
        let required = stop.requires(.answer, in: context.facts.hunt)
        let missed: RuleResult.Outcome = required ? .failed : .skipped
        if context.results.contains(where: { $0.outcome == .failed }) {
            return RuleResult(
                rule, .skipped, "not judged: the check-in is refused for another reason, no try spent")
        }
        let tries = context.facts.answerTries[stop.id] ?? AnswerTries()
        if submission.answerChecked == nil, tries.right {
            return RuleResult(rule, .passed, "already answered right at \(stop.name)")
        }
        let right: Bool
        if let checked = submission.answerChecked {
            right = checked
        } else {
            guard !typed.isEmpty else {
                return RuleResult(
                    rule, missed,
                    required
                        ? "\(stop.name) asks a question: answer it to check in"
                        : question.points > 0
                            ? "no answer to \(stop.name)'s question (\(question.points) points to win)"
                            : "no answer to \(stop.name)'s question")
            }
            guard tries.wrong < question.attempts else {
                return RuleResult(
                    rule, missed,
                    "no tries left: \(Self.count(tries.wrong, "wrong answer")) of \(question.attempts) allowed"
                )
            }
            right = question.accepts(typed)
        }
        context.answerRight = right
        context.answerTriesLeft = max(0, question.attempts - tries.wrong)
        if right {
            if question.points > 0, !tries.right { context.answerPoints = question.points }
            return RuleResult(
                rule, .passed,
                question.points > 0 ? "right answer: +\(question.points) points" : "right answer")
        }
        let left = max(0, question.attempts - tries.wrong - 1)
        context.answerTriesLeft = left
        let more = left > 0 ? "\(Self.count(left, "try")) left" : "no tries left"
        return RuleResult(
            rule, missed,
            required ? "not the answer: \(more)" : "not the answer (\(more)); the stop still counts")
    }

    static func count(_ n: Int, _ word: String) -> String {
        n == 1 ? "1 \(word)" : "\(n) \(word == "try" ? "tries" : word + "s")"
    }
}
