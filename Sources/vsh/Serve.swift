import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHServer
import VSHSpatiaLite

extension VSH {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the HTTP service for players' phones (accounts, hunts, leaderboards).",
            discussion: """
                vsh serve --port 8080        then: curl http://127.0.0.1:8080/v1/hunts
                Prints one line, "listening on http://HOST:PORT", once it accepts connections (--port 0 \\
                picks a free port). SIGTERM or SIGINT: stop accepting, finish what is in flight, exit 0. \\
                The routes are in ../shared/API.md; this release serves /healthz, accounts and sessions, \\
                /v1/me, the hunt feed, hunts, the leaderboard and public profiles.
                """)

        @OptionGroup var store: StoreOptions
        @Option(help: "The address to listen on.") var host = "127.0.0.1"
        @Option(help: "The port (0: a free one).") var port = 8080
        @Option(
            help: ArgumentHelp(
                "For tests and rehearsals: every request is received at this time (RFC 3339).",
                valueName: "time"))
        var now: String?

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh") {
                let db = try await SpatiaLiteStore.open(path: store.databasePath, hunts: store.huntsFolder)
                let host = self.host
                var configuration = ServerConfiguration(
                    host: host, port: port, store: db, photos: store.photoStore)
                if let now {
                    let fixed = try Clock.time(now, option: "--now")
                    configuration.clock = { fixed }
                }
                try await serve(configuration) { port in
                    Output.line("listening on http://\(host):\(port)")
                    Output.flush()
                }
                return .success
            }
        }
    }
}
