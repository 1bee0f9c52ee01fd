import Foundation
import Testing
import VSHCore
import VSHMemoryStore
import VSHSpatiaLite
import VSHTestSupport

/// The account store's behaviour, the same test on each backend.
@Suite struct AccountStoreTests {
    enum Backend: String, CaseIterable, Sendable { case spatiaLite, memory }

    func store(_ backend: Backend) throws -> any LeagueStore {
        switch backend {
        case .memory: return MemoryStore()
        case .spatiaLite:
            return try SpatiaLiteStore(
                path: TestSupport.temporaryDirectory("vsh-accounts").appendingPathComponent("v.sqlite").path)
        }
    }

    @Test(arguments: Backend.allCases) func passwordsRolesAndSessions(_ backend: Backend) async throws {
        let store = try store(backend)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.credentials(named: "Ann") == nil)
        let ann = try await store.addPlayer(name: "Ann Lee", email: "ann@example.org", at: t0)
        var credentials = try #require(try await store.credentials(named: "ann lee"))
        #expect(credentials.player == ann)
        #expect(credentials.passwordHash == nil)
        #expect(credentials.role == .player)

        try await store.setPasswordHash("$2b$12$hash-one", player: ann.id)
        try await store.setRole(.moderator, player: ann.id)
        credentials = try #require(try await store.credentials(named: "ANN LEE"))
        #expect(credentials.passwordHash == "$2b$12$hash-one")
        #expect(credentials.role == .moderator)

        try await store.createSession(tokenHash: "h1", player: ann.id, expiresAt: t0 + 3600, at: t0)
        try await store.createSession(tokenHash: "h2", player: ann.id, expiresAt: t0 + 3600, at: t0)
        let session = try #require(try await store.session(tokenHash: "h1", at: t0 + 60))
        #expect(session.player.id == ann.id)
        #expect(session.role == .moderator)
        #expect(try await store.session(tokenHash: "h1", at: t0 + 3600) == nil)  // expired
        #expect(try await store.session(tokenHash: "nope", at: t0) == nil)
        try await store.deleteSession(tokenHash: "h1")
        #expect(try await store.session(tokenHash: "h1", at: t0 + 60) == nil)
        #expect(try await store.session(tokenHash: "h2", at: t0 + 60) != nil)
        // A new password ends every session.
        try await store.setPasswordHash("$2b$12$hash-two", player: ann.id)
        #expect(try await store.session(tokenHash: "h2", at: t0 + 60) == nil)

        // Registering with a password is one step: a refused name or address leaves nothing behind.
        let bo = try await store.addPlayer(
            name: "Bo", email: "bo@example.org", passwordHash: "$2b$12$bo", at: t0)
        #expect(try await store.credentials(named: "bo")?.passwordHash == "$2b$12$bo")
        #expect(try await store.credentials(named: "bo")?.player == bo)
        await #expect(throws: LeagueError.nameTaken(name: "BO")) {
            try await store.addPlayer(name: "BO", email: nil, passwordHash: "x", at: t0)
        }
        await #expect(throws: LeagueError.invalidEmail("no address")) {
            try await store.addPlayer(name: "Cy", email: "no address", passwordHash: "x", at: t0)
        }
        #expect(try await store.credentials(named: "Cy") == nil)

        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await store.setRole(.moderator, player: PlayerID(99))
        }
        await #expect(throws: LeagueError.unknownPlayerID(PlayerID(99))) {
            try await store.setPasswordHash("x", player: PlayerID(99))
        }
    }
}
