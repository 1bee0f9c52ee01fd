import Foundation
public import VSHCore

/// The `--json` shape of a check-in and its text form.
public enum CheckInJSON {
    /// `{verdict, id, player, player_id, hunt, stop, points, rules: [{rule, result, detail}], fix: {lat, lon, accuracy_m, time, source}}`,
    /// with `answer: {right, tries_left}` when an answer to the stop's question was judged.
    public static func checkIn(_ recorded: RecordedCheckIn) -> JSONValue {
        let decision = recorded.decision
        let fix: JSONValue =
            decision.fix.map { fix in
                .object([
                    "lat": .double(Coordinate.printed(fix.position.latitude)),
                    "lon": .double(Coordinate.printed(fix.position.longitude)),
                    "accuracy_m": fix.accuracyMeters.map(JSONValue.double) ?? .null,
                    "time": .string(RFC3339.format(fix.time)), "source": .string(fix.source.rawValue),
                ])
            } ?? .null
        var object: JSONObject = [
            "verdict": .string(decision.verdict.rawValue),
            "id": .int(Int(recorded.id)),
            "player": .string(recorded.player),
            "player_id": .int(Int(recorded.playerID.rawValue)),
            "hunt": .optional(decision.hunt?.id),
            "stop": .optional(decision.stop?.id),
            "stop_name": .optional(decision.stop?.name),
            "points": .int(decision.points),
            "rules": RuleResult.json(decision.rules),
            "fix": fix,
            "awards": .array(
                recorded.awards.map { a in
                    .object([
                        "kind": .string(a.kind.rawValue), "hunt": .string(a.huntID),
                        "badge": .optional(a.badgeID), "points": .int(a.points),
                    ])
                }),
        ]
        if let right = decision.answerRight {
            object["answer"] = .object([
                "right": .bool(right), "tries_left": .int(decision.answerTriesLeft ?? 0),
            ])
        }
        return .object(object)
    }

    /// `checkIn(recorded)` as compact JSON text, with the rules' text the store made for the
    /// check-in's row (`RecordedCheckIn.rulesText`) when it has it: the answer a retry key keeps.
    public static func text(_ recorded: RecordedCheckIn) -> String {
        guard let rules = recorded.rulesText else { return checkIn(recorded).compactText }
        var shape = recorded
        shape.decision.rules = []
        return checkIn(shape).compactText(member: "rules", asText: rules)
    }

    /// The verdict, the stop, the points and the check-in's number, on one line (a batch prints
    /// this alone for each photo).
    public static func headline(_ recorded: RecordedCheckIn) -> String {
        let decision = recorded.decision
        var headline = decision.verdict.rawValue.uppercased()
        if let stop = decision.stop { headline += ": \(stop.name) (\(stop.huntID))" }
        switch decision.verdict {
        case .accepted: headline += decision.points > 0 ? " · +\(decision.points) points" : " · no points"
        case .pending: headline += " · waiting for a moderator"
        case .rejected: break
        }
        return headline + " · check-in #\(recorded.id)"
    }

    /// A headline and one line a rule.
    public static func describe(_ recorded: RecordedCheckIn) -> [String] {
        let decision = recorded.decision
        var lines = [headline(recorded)]
        let width = Rule.allCases.map(\.rawValue.count).max() ?? 12
        for result in decision.rules {
            let mark: String
            switch result.outcome {
            case .passed: mark = "✔"
            case .failed: mark = "✘"
            case .needsReview: mark = "?"
            case .skipped: mark = "–"
            }
            lines.append(
                "  \(mark) " + result.rule.rawValue
                    + String(repeating: " ", count: max(0, width + 2 - result.rule.rawValue.count))
                    + result.detail)
        }
        for award in recorded.awards {
            switch award.kind {
            case .bonus: lines.append("  ★ hunt complete: \(award.huntID) bonus +\(award.points)")
            case .badge:
                lines.append(
                    "  ★ badge earned: \(award.badgeID ?? "?")"
                        + (award.points > 0 ? " +\(award.points)" : ""))
            case .stop, .answer: break
            }
        }
        return lines
    }
}
