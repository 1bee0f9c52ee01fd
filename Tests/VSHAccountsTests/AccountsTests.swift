import Foundation
import Testing
import VSHAccounts
import VSHCore

@Suite struct PasswordsTests {
    @Test func hashesAreBcryptAndVerifyOnlyTheirPassword() throws {
        let hash = try Passwords.hash("correct horse battery")
        #expect(hash.hasPrefix("$2") && hash.contains("$12$"), "\(hash)")
        #expect(!hash.contains("correct horse battery"))
        #expect(Passwords.verify("correct horse battery", hash: hash))
        #expect(!Passwords.verify("correct horse batterz", hash: hash))
        #expect(!Passwords.verify("", hash: hash))
        // Salted: the same password hashes differently each time.
        #expect(try Passwords.hash("correct horse battery") != hash)
        #expect(!Passwords.verify("anything at all", hash: Passwords.decoyHash))
    }

    @Test func badPasswordsAreRefusedWithoutBeingShown() {
        #expect(throws: PasswordError.tooShort(minimum: 8)) { try Passwords.hash("seven77") }
        #expect(throws: PasswordError.tooLong(maximumBytes: 72)) {
            try Passwords.hash(String(repeating: "é", count: 37))
        }
        #expect(throws: PasswordError.lineBreak) { try Passwords.hash("two\nlines here") }
        #expect((try? Passwords.hash(String(repeating: "a", count: 72))) != nil)
        #expect(!String(describing: PasswordError.tooShort(minimum: 8)).contains("seven77"))
    }

    @Test func tokensAreRandomAndKeptOnlyAsHashes() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let (token, hash) = SessionTokens.make()
            #expect(token.count == 64 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(hash == SHA256.hex(Array(token.utf8)))
            #expect(hash != token)
            #expect(SessionTokens.hash(token) == hash)
            seen.insert(token)
        }
        #expect(seen.count == 200)
    }
}
