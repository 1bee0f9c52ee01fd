/// `hunts/badges.json`: `{"badges": [{id, name, description, points, rule: {kind, ...}}]}`.
///
/// Validated like hunt files: every problem names the file, the badge and the field.
public enum BadgeFile {
    /// `badges.json` in a hunts folder.
    public static let fileName = "badges.json"

    /// Reads and validates `badges.json`: the badges, or every problem (rules may only name hunts in `huntIDs`).
    public static func read(_ bytes: some Collection<UInt8>, file: String, huntIDs: Set<String>) -> Result<
        [Badge], HuntFileErrors
    > {
        var errors: [HuntFileError] = []
        func fail(_ problem: HuntFileError.Problem, badge: String? = nil) {
            errors.append(HuntFileError(file: file, badge: badge, problem: problem))
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            return .failure(HuntFileErrors([HuntFileError(file: file, problem: .syntax(error))]))
        }
        guard case .object(let object) = root, case .array(let items)? = object["badges"] else {
            return .failure(HuntFileErrors([HuntFileError(file: file, problem: .missingField("badges"))]))
        }
        for key in object.keys where key != "badges" { fail(.unknownField(key)) }
        var badges: [Badge] = []
        var seen = Set<String>()
        for (index, item) in items.enumerated() {
            guard case .object(let b) = item else {
                fail(.invalidValue(field: "badges[\(index)]", reason: "is not an object"))
                continue
            }
            guard case .string(let id)? = b["id"], Slug.isValid(id) else {
                fail(
                    .invalidValue(
                        field: "badges[\(index)].id",
                        reason: "must be a slug (lower-case letters, digits, hyphens)"))
                continue
            }
            let before = errors.count
            if !seen.insert(id).inserted {
                fail(.invalidValue(field: "id", reason: "\"\(id)\" is used twice"), badge: id)
            }
            for key in b.keys where !["id", "name", "description", "points", "rule"].contains(key) {
                fail(.unknownField(key), badge: id)
            }
            var name = ""
            switch b["name"] {
            case .string(let text)? where DisplayText.problem(in: text) != nil:
                fail(.invalidValue(field: "name", reason: DisplayText.problem(in: text)!), badge: id)
            case .string(let text)? where !text.trimmingSpaces().isEmpty: name = text
            case nil: fail(.missingField("name"), badge: id)
            case let other?:
                fail(
                    .wrongType(field: "name", expected: "a non-empty string", found: other.typeDescription),
                    badge: id)
            }
            var description = ""
            if case .string(let text)? = b["description"] {
                if let problem = DisplayText.problem(in: text, multiline: true) {
                    fail(.invalidValue(field: "description", reason: problem), badge: id)
                }
                description = text
            }
            var points = 0
            switch b["points"] {
            case nil, .null?: break
            case .number(let n, _)? where n == n.rounded() && (0...100_000).contains(n): points = Int(n)
            case let other?:
                fail(
                    .wrongType(
                        field: "points", expected: "a whole number 0...100000", found: other.typeDescription),
                    badge: id)
            }
            guard case .object(let r)? = b["rule"] else {
                fail(.missingField("rule"), badge: id)
                continue
            }
            guard case .string(let kind)? = r["kind"] else {
                fail(.missingField("rule.kind"), badge: id)
                continue
            }
            func count(_ key: String, _ range: ClosedRange<Int>) -> Int? {
                guard case .number(let n, _)? = r[key], n == n.rounded(), range.contains(Int(n)) else {
                    fail(
                        .invalidValue(
                            field: "rule.\(key)",
                            reason: "must be a whole number in \(range.lowerBound)...\(range.upperBound)"),
                        badge: id)
                    return nil
                }
                return Int(n)
            }
            func minute(_ key: String) -> Int? {
                guard case .string(let text)? = r[key] else {
                    fail(.missingField("rule.\(key)"), badge: id)
                    return nil
                }
                let parts = text.split(separator: ":")
                guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h),
                    (0..<60).contains(m)
                else {
                    fail(.invalidValue(field: "rule.\(key)", reason: "is \"\(text)\"; use HH:MM"), badge: id)
                    return nil
                }
                return h * 60 + m
            }
            let allowed: Set<String>
            var rule: Badge.Rule?
            switch kind {
            case "first_checkin":
                allowed = ["kind"]
                rule = .firstCheckIn
            case "stops_visited":
                allowed = ["kind", "count"]
                rule = count("count", 1...100_000).map { .stopsVisited(count: $0) }
            case "hunts_completed":
                allowed = ["kind", "count"]
                rule = count("count", 1...10_000).map { .huntsCompleted(count: $0) }
            case "hunt_completed":
                allowed = ["kind", "hunt"]
                if case .string(let hunt)? = r["hunt"], huntIDs.contains(hunt) {
                    rule = .huntCompleted(huntID: hunt)
                } else {
                    fail(
                        .invalidValue(field: "rule.hunt", reason: "must name a hunt of this folder"),
                        badge: id)
                }
            case "difficulty_completed":
                allowed = ["kind", "difficulty"]
                if case .string(let text)? = r["difficulty"], let difficulty = Hunt.Difficulty(rawValue: text)
                {
                    rule = .difficultyCompleted(difficulty)
                } else {
                    fail(
                        .invalidValue(
                            field: "rule.difficulty", reason: "must be easy, medium, hard or expert"),
                        badge: id)
                }
            case "time_window":
                allowed = ["kind", "from", "to", "count"]
                let from = minute("from")
                let to = minute("to")
                let n = r["count"] == nil ? 1 : count("count", 1...10_000)
                if let from, let to, let n {
                    if from == to {
                        fail(
                            .invalidValue(field: "rule.to", reason: "equals rule.from; the window is empty"),
                            badge: id)
                    } else {
                        rule = .timeWindow(fromMinute: from, toMinute: to, count: n)
                    }
                }
            case "stops_within":
                allowed = ["kind", "count", "hours"]
                let n = count("count", 2...10_000)
                var hours: Double?
                if case .number(let h, _)? = r["hours"], h > 0, h <= 24 * 366 {
                    hours = h
                } else {
                    fail(
                        .invalidValue(field: "rule.hours", reason: "must be a number of hours above 0"),
                        badge: id)
                }
                if let n, let hours { rule = .stopsWithin(count: n, hours: hours) }
            case "consecutive_days":
                allowed = ["kind", "days"]
                rule = count("days", 2...366).map { .consecutiveDays(days: $0) }
            default:
                allowed = []
                fail(
                    .invalidValue(
                        field: "rule.kind",
                        reason:
                            "is \"\(kind)\"; use first_checkin, stops_visited, hunts_completed, hunt_completed, difficulty_completed, time_window, stops_within or consecutive_days"
                    ), badge: id)
            }
            if !allowed.isEmpty {
                for key in r.keys where !allowed.contains(key) {
                    fail(.unknownField("rule.\(key)"), badge: id)
                }
            }
            if errors.count == before, let rule {
                badges.append(Badge(id: id, name: name, description: description, points: points, rule: rule))
            }
        }
        return errors.isEmpty ? .success(badges) : .failure(HuntFileErrors(errors))
    }
}

extension BadgeFile {
    /// The `rule` object as written in `badges.json` (and kept in the database).
    public static func ruleJSON(_ rule: Badge.Rule) -> JSONValue {
        func hhmm(_ minutes: Int) -> JSONValue {
            .string(RFC3339.pad(minutes / 60, 2) + ":" + RFC3339.pad(minutes % 60, 2))
        }
        var object: JSONObject = ["kind": .string(rule.kind)]
        switch rule {
        case .firstCheckIn: break
        case .stopsVisited(let count), .huntsCompleted(let count): object["count"] = .int(count)
        case .huntCompleted(let hunt): object["hunt"] = .string(hunt)
        case .difficultyCompleted(let difficulty): object["difficulty"] = .string(difficulty.rawValue)
        case .timeWindow(let from, let to, let count):
            object["from"] = hhmm(from)
            object["to"] = hhmm(to)
            object["count"] = .int(count)
        case .stopsWithin(let count, let hours):
            object["count"] = .int(count)
            object["hours"] = .double(hours)
        case .consecutiveDays(let days): object["days"] = .int(days)
        }
        return .object(object)
    }

    /// Badges from rows of (id, name, description, points, rule JSON), as the database keeps them.
    public static func badges(
        fromRows rows: [(id: String, name: String, description: String, points: Int, rule: String)],
        huntIDs: Set<String>
    ) -> [Badge] {
        let items = rows.map { row -> JSONValue in
            .object([
                "id": .string(row.id), "name": .string(row.name), "description": .string(row.description),
                "points": .int(row.points),
                "rule": (try? JSONValue.parse(row.rule)) ?? .null,
            ])
        }
        let text = JSONValue.object(["badges": .array(items)]).compactText
        return (try? read(Array(text.utf8), file: "database", huntIDs: huntIDs).get()) ?? []
    }
}

extension BadgeFile {
    /// `badges.json` for `badges`, laid out as the shipped file is (one badge's fields a line, its
    /// rule on one line, a time window's count of 1 left out as the file may leave it): what
    /// `vsh hunts export` writes when the database does not hold the file it was synced from.
    public static func text(of badges: [Badge]) -> String {
        func inline(_ value: JSONValue) -> String {
            guard case .object(let object) = value else { return value.compactText }
            let members = object.members.filter { $0.value != .null }
            return "{"
                + members.map { "\(JSONValue.string($0.key).compactText): \($0.value.compactText)" }
                .joined(separator: ", ") + "}"
        }
        let items = badges.map { badge -> String in
            var rule = ruleJSON(badge.rule)
            if case .timeWindow(_, _, 1) = badge.rule, case .object(var object) = rule {
                object["count"] = .null
                rule = .object(object)
            }
            let fields = [
                "\"id\": \(JSONValue.string(badge.id).compactText)",
                "\"name\": \(JSONValue.string(badge.name).compactText)",
                "\"description\": \(JSONValue.string(badge.description).compactText)",
                "\"points\": \(badge.points)",
                "\"rule\": \(inline(rule))",
            ]
            return "    {\n      " + fields.joined(separator: ",\n      ") + "\n    }"
        }
        return "{\n  \"badges\": [\n" + items.joined(separator: ",\n") + "\n  ]\n}\n"
    }
}
