import Testing
import VSHCore

@Suite struct PlayerNameTests {
    @Test func namesAreStoredInNFC() throws {
        let decomposed = "Jose\u{301}"
        let stored = try PlayerName.validate(decomposed).get()
        #expect(stored == "Jos\u{E9}" && stored.unicodeScalars.count == 4)
        #expect(PlayerName.key(decomposed) == PlayerName.key("JOS\u{C9}"))
    }

    @Test func keysIgnoreCaseAndCompatibilityForms() {
        #expect(PlayerName.key("ＡＮＮ ＬＥＥ") == PlayerName.key("ann lee"))  // full-width
        #expect(PlayerName.key("Straße") == PlayerName.key("STRASSE"))  // full case folding
        #expect(PlayerName.key("ﬁona") == PlayerName.key("Fiona"))  // the fi ligature
        #expect(PlayerName.key("Ann") != PlayerName.key("Anne"))
        #expect(PlayerName.key("Zoë") != PlayerName.key("Zoe"))  // an accent is part of a name
    }

    @Test func mixedScriptsAreRefused() {
        // A Cyrillic А (U+0410) in a Latin name.
        #expect(PlayerName.validate("\u{410}nn Lee") == .failure(.mixedScripts("Cyrillic", "Latin")))
        #expect(PlayerName.validate("Ann Le\u{435}") == .failure(.mixedScripts("Latin", "Cyrillic")))
        #expect(PlayerName.validate("Omega \u{3A9}") == .failure(.mixedScripts("Latin", "Greek")))
        // One script, or the scripts written together in Japanese, Chinese and Korean names.
        for name in ["Анна Ли", "Αθηνά", "山田 はなこ", "ヤマダ 花子 2", "김민준", "李 ㄅ", "Ann 李", "Zoë-O'Neil", "दीपिका"] {
            #expect((try? PlayerName.validate(name).get()) != nil, "\(name)")
        }
        #expect(PlayerName.validate("Анна 李") == .failure(.mixedScripts("Cyrillic", "Han")))
    }

    @Test func combiningMarksCannotMakeALongNameShort() {
        let zalgo = "Ann" + String(repeating: "\u{336}", count: 200)  // a mark without precomposed forms
        #expect(zalgo.count == 3)
        #expect(PlayerName.validate(zalgo) == .failure(.tooManyMarks(codePoints: 203, limit: 120)))
        #expect(
            PlayerName.validate(String(repeating: "a", count: 41))
                == .failure(.tooLong(characters: 41, limit: 40)))
    }

    @Test func rekeyingKeepsEveryPlayerAndTheFirstOfALookAlikePair() {
        let result = PlayerName.rekeyed([
            (id: 7, name: "ANN"), (id: 3, name: "Jose\u{301}"), (id: 5, name: "ann"),
        ])
        #expect(result.map(\.id) == [3, 5, 7])
        #expect(result[0].name == "Jos\u{E9}" && result[0].key == PlayerName.key("jos\u{E9}"))
        #expect(result[1].key == "ann" && result[2].key == "ann#7")
    }
}
