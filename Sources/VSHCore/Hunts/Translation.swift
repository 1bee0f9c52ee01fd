/// A hunt's or a stop's name and description in another language, as an organiser writes them in
/// the hunt file: `"translations": {"es": {"name": "Clásicos del Strip", "description": "…"}}` in
/// the `hunt` member or a stop's properties. The web app shows them to players whose language it
/// is; everything else (commands, boards, e-mails) uses the file's own `name`.
public struct Translation: Hashable, Sendable {
    /// The name in that language.
    public var name: String
    /// The description in that language; nil: the file's own.
    public var description: String?

    /// A translation from its fields.
    public init(name: String, description: String? = nil) {
        self.name = name
        self.description = description
    }
}

extension HuntFile {
    /// Languages a hunt or stop may give its texts in, at most.
    public static let maxTranslations = 20

    /// Whether `tag` is a language tag as BCP 47 writes its common forms: `es`, `pt-BR`, `zh-Hant`.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count),
            first.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count)
                && part.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                }
        }
    }

    /// Translations as hunt files and databases write them (keys sorted by the writer).
    public static func translationsJSON(_ translations: [String: Translation]) -> JSONValue {
        .object(
            JSONObject(
                translations.sorted { $0.key < $1.key }.map { tag, translation in
                    var fields: JSONObject = ["name": .string(translation.name)]
                    if let description = translation.description {
                        fields["description"] = .string(description)
                    }
                    return (key: tag, value: JSONValue.object(fields))
                }))
    }

    /// Translations from their stored JSON text (written by `translationsJSON`); none for nil or a
    /// text that is not such an object.
    public static func translations(stored text: String?) -> [String: Translation] {
        guard let text, case .object(let languages)? = try? JSONValue.parse(text) else { return [:] }
        var found: [String: Translation] = [:]
        for (tag, value) in languages.members {
            guard case .object(let fields) = value, case .string(let name)? = fields["name"] else { continue }
            var description: String?
            if case .string(let text)? = fields["description"] { description = text }
            found[tag] = Translation(name: name, description: description)
        }
        return found
    }
}
