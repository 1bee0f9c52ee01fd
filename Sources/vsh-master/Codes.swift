import ArgumentParser
import Foundation
import VSHAuthoring
import VSHCommandSupport
import VSHCore
import VSHEngine

extension VSHMaster {
    struct Codes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "codes",
            abstract:
                "Print a hunt's stop codes: a sheet of cards, each with a stop's name, QR code and code.",
            discussion: """
                vsh-master codes --hunt strip-classics --public-url https://hunt.example.org -o sheet.svg

                One SVG page per six stops (sheet.svg, sheet-2.svg, ...), A4 or letter, to print, cut and \
                stick at each stop. A phone that scans a card opens the stop's page and checks in with the \
                code; a player can also type it there. The sheet holds the codes: keep it from players until \
                the cards are up. Stops whose code rotates are left out (their screen is PUBLIC_URL/display/STOP).
                """)
        @OptionGroup var folder: FolderOptions
        @Option(help: "The hunt id.") var hunt: String
        @Option(
            help: ArgumentHelp(
                "The address players reach vsh serve at (its --public-url), which the QR codes hold.",
                valueName: "url"))
        var publicURL: String
        @Option(help: "a4 or letter.") var paper: String = "a4"
        @Option(name: .shortAndLong, help: ArgumentHelp("The first page's file.", valueName: "file.svg"))
        var output: String

        func validate() throws {
            guard let components = URLComponents(string: publicURL), components.host != nil,
                ["http", "https"].contains(components.scheme ?? "")
            else {
                throw ValidationError("--public-url takes a URL such as https://hunt.example.org")
            }
            guard StopCodeSheet.Paper(rawValue: paper) != nil else {
                throw ValidationError("--paper takes a4 or letter")
            }
        }

        func run() async throws {
            try await CommandRunner.run(tool: "vsh-master") {
                let hunts = try openFolder(folder)
                let target = try hunts.hunt(hunt)
                guard
                    let pages = StopCodeSheet.pages(
                        target, publicURL: publicURL, paper: StopCodeSheet.Paper(rawValue: paper) ?? .a4)
                else {
                    throw InputError(
                        "hunt \"\(hunt)\" has no stop with a printed code (give one: vsh-master stop set STOP --code auto)"
                    )
                }
                let base = output.hasSuffix(".svg") ? String(output.dropLast(4)) : output
                for (index, page) in pages.enumerated() {
                    let path = index == 0 ? output : "\(base)-\(index + 1).svg"
                    try HuntFolder.writeAtomically(page, to: path)
                    // The codes are secrets: the sheet is the organiser's alone.
                    chmod(path, 0o600)
                }
                let printed = target.stops.filter { $0.code != nil }.count
                Output.line(
                    "\(output): \(printed) stop code\(printed == 1 ? "" : "s") on \(pages.count) page\(pages.count == 1 ? "" : "s")"
                )
                for stop in target.stops where stop.code == nil {
                    let why =
                        stop.rotatingCode != nil
                        ? "its code rotates: show \(publicURL)/display/\(stop.id) on a screen there"
                        : "no printed code"
                    Output.line("  left out: \(stop.id) (\(why))")
                }
                return .success
            }
        }
    }
}
