import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// The web app's translation files (Sources/VSHServer/Web/i18n, docs/translating.md): every text the
/// code passes to `t('…')` literally has a Spanish entry, and every entry keeps its `{values}`.
@Suite struct TranslationFileTests {
    static let web = TestSupport.packageRoot.appendingPathComponent("Sources/VSHServer/Web")

    static func entries(_ language: String) throws -> [(key: String, value: String)] {
        let data = try Data(contentsOf: web.appendingPathComponent("i18n/\(language).json"))
        guard case .object(let object) = try JSONValue.parse([UInt8](data)) else {
            throw FixtureError("i18n/\(language).json is not an object")
        }
        return try object.members.map { member in
            guard case .string(let text) = member.value else {
                throw FixtureError("i18n/\(language).json: \(member.key) is not a string")
            }
            return (member.key, text)
        }
    }

    static func placeholders(_ text: String) -> [String] {
        text.matches(of: #/\{\w+\}/#).map { String(text[$0.range]) }.sorted()
    }

    @Test func everyTextTheCodeTranslatesHasASpanishEntry() throws {
        let spanish = Set(try Self.entries("es").map(\.key))
        var used: [String] = []
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.web.path)
            .filter { $0.hasSuffix(".js") && $0 != "sw.js" }
        #expect(files.contains("pages/stop.js"))
        for file in files {
            let code = try String(contentsOf: Self.web.appendingPathComponent(file), encoding: .utf8)
            for match in code.matches(of: #/\bt\('((?:[^'\\]|\\.)*)'/#) {
                used.append(String(match.1).replacingOccurrences(of: "\\'", with: "'"))
            }
        }
        #expect(used.count > 150, "the code translates \(used.count) texts")
        let missing = Set(used).subtracting(spanish).sorted()
        #expect(missing.isEmpty, "texts without a Spanish entry: \(missing)")
    }

    @Test func everyEntryKeepsItsValues() throws {
        let entries = try Self.entries("es")
        #expect(entries.count > 150)
        for (key, value) in entries {
            #expect(!value.isEmpty, "\(key) is translated as nothing")
            #expect(
                Self.placeholders(key) == Self.placeholders(value),
                "\"\(key)\" → \"\(value)\": the values in braces differ")
        }
    }
}
