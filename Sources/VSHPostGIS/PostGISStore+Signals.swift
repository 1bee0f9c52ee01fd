import Foundation
internal import PostgresNIO
public import VSHCore

extension PostGISStore: LeagueSignals {
    /// The notification channel the instances share.
    static let signalChannel = "vsh_events"
    /// This process's name on the channel: what it sends it does not hear back.
    static let instanceName = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// A notification's payload stays under PostgreSQL's 8000 bytes.
    static let maxPayload = 7_000

    /// Tells the other instances, in as few notifications as fit.
    public func send(_ signals: [LeagueSignal]) async throws {
        var payloads: [String] = []
        var current = Self.instanceName
        for word in LeagueSignal.words(signals) {
            if current.utf8.count + 1 + word.utf8.count > Self.maxPayload {
                payloads.append(current)
                current = Self.instanceName
            }
            current += " " + word
        }
        if current != Self.instanceName { payloads.append(current) }
        for payload in payloads {
            try await client.query(
                "SELECT pg_notify(\(Self.signalChannel), \(payload))", logger: logger)
        }
    }

    /// Listens until cancelled, on a connection of its own (outside the pool, whose connections
    /// come and go), closed with PostgreSQL's goodbye when the listening ends.
    public func listen(_ receive: @escaping @Sendable ([LeagueSignal]) -> Void) async throws {
        guard let direct else { return }
        let connection = try await PostgresConnection.connect(configuration: direct, id: 1, logger: logger)
        do {
            try await connection.listen(on: Self.signalChannel) { notifications in
                for try await notification in notifications {
                    let words = notification.payload.split(separator: " ")
                    guard let from = words.first, from != Self.instanceName else { continue }
                    let signals = LeagueSignal.parse(words.dropFirst())
                    if !signals.isEmpty { receive(signals) }
                }
            }
        } catch {
            await Self.goodbye(connection)
            throw error
        }
        await Self.goodbye(connection)
    }

    /// Closes the connection with PostgreSQL's goodbye, in a task of its own: the listening task
    /// is being cancelled, and a cancelled close would drop the connection without one.
    static func goodbye(_ connection: PostgresConnection) async {
        await Task { try? await connection.closeGracefully() }.value
    }
}
