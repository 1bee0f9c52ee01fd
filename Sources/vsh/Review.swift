import ArgumentParser
import Foundation
import VSHCommandSupport
import VSHCore
import VSHEngine
import VSHSpatiaLite

extension VSH {
    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "Moderate check-ins waiting for review.",
            subcommands: [List.self, Approve.self, Reject.self, Revoke.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Check-ins waiting for a moderator, oldest first.")
            @OptionGroup var store: StoreOptions
            @Flag(help: "One JSON array: [{id, player, player_id, received_at, hunt, stop, reasons, photo}].")
            var json = false

            func run() async throws {
                try await CommandRunner.run(tool: "vsh") {
                    let db = try await store.openStore(sync: false, existing: true)
                    let pending = try await db.pendingCheckIns()
                    let archive = store.photos(of: db)
                    if json {
                        Output.line(
                            JSONValue.array(
                                pending.map { p in
                                    .object([
                                        "id": .int(Int(p.id)), "player": .string(p.player),
                                        "player_id": .int(Int(p.playerID.rawValue)),
                                        "received_at": .string(RFC3339.format(p.receivedAt)),
                                        "hunt": .optional(p.huntID), "stop": .optional(p.stopID),
                                        "reasons": .array(p.reasons.map(JSONValue.string)),
                                        "photo": .optional(p.photoFile.map(archive.location)),
                                    ])
                                }
                            ).compactText)
                        return .success
                    }
                    if pending.isEmpty { Output.line("Nothing to review.") }
                    let clock = pending.isEmpty ? HuntClock(hunts: []) : try await HuntClock.of(db)
                    for p in pending {
                        Output.line(
                            "#\(p.id)  \(p.player)  \(p.stopName ?? "no stop") (\(p.huntID ?? "-"))  received \(clock.second(p.receivedAt, hunt: p.huntID))"
                        )
                        for reason in p.reasons { Output.line("    \(clock.words(reason, hunt: p.huntID))") }
                        if let file = p.photoFile { Output.line("    photo: \(archive.location(of: file))") }
                    }
                    return .success
                }
            }
        }

        struct Decide: ParsableArguments {
            @OptionGroup var store: StoreOptions
            @Argument(help: "The check-in id (see `vsh review list`).") var id: Int64
            @Option(help: "Who decides (default: $USER).") var moderator: String?
            @Option(help: ArgumentHelp("Use this time as now (RFC 3339).", valueName: "time")) var now:
                String?

            func decide(_ decision: ReviewDecision, reason: String?, override: Bool = false) async throws {
                try await CommandRunner.run(tool: "vsh") {
                    let who = moderator ?? ProcessInfo.processInfo.environment["USER"] ?? "moderator"
                    let db = try await store.openStore(existing: true)
                    let outcome: ReviewOutcome
                    if decision == .approved {
                        // The rules run again against the check-ins known now.
                        do {
                            outcome = try await ReviewService(store: db, photos: store.photos(of: db))
                                .approve(
                                    id, reason: reason, moderator: who, at: try Clock.now(now),
                                    override: override)
                        } catch let error as ReviewRecheckError {
                            // The rules' times on the league's clock.
                            let clock = try await HuntClock.of(db)
                            throw InputError(
                                clock.words(ErrorWords.message(error), hunt: nil), status: .dataError)
                        }
                    } else {
                        outcome = try await db.review(
                            id, decision, reason: reason ?? "", moderator: who, at: try Clock.now(now))
                    }
                    var line =
                        "check-in #\(outcome.checkInID) by \(outcome.player): \(outcome.state.rawValue)"
                    if let copy = outcome.recordedAs {
                        // The rejected check-in stays as it was; a new one records the evidence.
                        line =
                            "check-in #\(outcome.checkInID) by \(outcome.player): rejection overturned, recorded as #\(copy) \(outcome.state.rawValue)"
                    }
                    // What the player's total changed by: a badge or bonus may move between check-ins.
                    let change = outcome.pointsChange
                    if change != 0 {
                        line += ", \(change > 0 ? "+" : "")\(change) points (now \(outcome.playerPoints))"
                    }
                    Output.line(line)
                    return .success
                }
            }
        }

        struct Approve: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "approve",
                abstract: "Accept a pending check-in, or overturn a rejected one (credits its points).",
                discussion: """
                    The rules run again first, against the check-ins known now (the player may have checked \
                    in elsewhere since): when one fails now, the approval is refused with the rule's words \
                    (exit 65), unless --override, which the audit trail keeps with the reason.

                    A rejected check-in (its GPS was off, or a copy of its photo came first) is overturned: \
                    --reason is required, the rules that rejected it are what you overturn, and only a rule \
                    that fails now and did not then needs --override. Check-ins are never changed: the \
                    rejected one stays in the record and a new check-in, approved by you, holds its photo \
                    or fix (the line printed names it). A rejection is overturned once.
                    """)
            @OptionGroup var decision: Decide
            @Option(
                help: ArgumentHelp(
                    "Why (kept in the audit trail; default for a pending check-in: \"approved by a moderator\"; required to overturn a rejection)."
                )) var reason: String?
            @Flag(help: "Approve although a rule fails now (the failing rules are added to the reason).")
            var override = false
            func run() async throws {
                try await decision.decide(.approved, reason: reason, override: override)
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke",
                abstract:
                    "Withdraw an accepted check-in: its points, completions and badges are withdrawn too.")
            @OptionGroup var decision: Decide
            @Option(help: "Why (required; kept in the audit trail).") var reason: String
            func run() async throws { try await decision.decide(.revoked, reason: reason) }
        }

        struct Reject: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "reject", abstract: "Reject a pending check-in.")
            @OptionGroup var decision: Decide
            @Option(help: "Why (required; kept in the audit trail).") var reason: String
            func run() async throws { try await decision.decide(.rejected, reason: reason) }
        }
    }
}
