import ArgumentParser
import Foundation
import Synchronization
import VSHCore

/// Runs a command's body and turns every error into one line on stderr and
/// the documented exit status (README, "Exit codes"), never a stack trace.
public enum CommandRunner {
    /// - Parameter tool: the program name that prefixes error lines (`vsh`, `vsh-master`).
    public static func run(tool: String, _ body: () async throws -> ExitStatus) async throws {
        let status: ExitStatus
        do {
            status = try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            Output.error("\(tool): \(error.message)")
            status = .usage
        } catch let error as HuntFileErrors {
            for line in error.errors { Output.error("\(tool): \(line)") }
            status = .dataError
        } catch let error as HuntConflicts {
            for line in error.description.split(separator: "\n") { Output.error("\(tool): \(line)") }
            Output.error(
                "\(tool): export the published hunts into the folder first (vsh hunts export DIR), "
                    + "or publish the files over them with vsh sync --force")
            status = ExitStatus(error.errorKind)
        } catch let error as InputError {
            Output.error("\(tool): \(oneLine(error.message))")
            status = error.exitStatus
        } catch let error as any ClassifiedError {
            Output.error("\(tool): \(oneLine(ErrorWords.message(error)))")
            status = ExitStatus(error.errorKind)
        } catch {
            Output.error("\(tool): internal error: \(oneLine(error))")
            status = .internalError
        }
        Output.flush()
        let failure = Output.writeFailure.load(ordering: .relaxed)
        if failure != 0 {
            Output.error("\(tool): cannot write the output: \(String(cString: strerror(failure)))")
            throw ExitCode(ExitStatus.ioError.rawValue)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }

    static func oneLine(_ error: any Error) -> String {
        oneLine(String(describing: error))
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

}

/// Buffered standard output (a million `locate` lines must not be a million
/// writes) and unbuffered standard error.
public enum Output {
    /// Standard output is one per process; the buffer in front of it is guarded so that
    /// lines from concurrent tasks never interleave mid-line.
    private static let buffer = Mutex<[UInt8]>(
        {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 16)
            return buffer
        }())

    /// What is written: control and text-direction characters escaped (`DisplayText`), then
    /// `TerminalStyle`'s markers turned into the terminal's bold and dim. Every line of every
    /// command goes through here, so untrusted text (EXIF, file names, GPX names) cannot
    /// reach the terminal raw from any of them.
    static func terminal(_ text: String) -> String {
        let safe = DisplayText.escapedForTerminal(text)
        guard safe.utf8.contains(0xEF) else { return safe }  // U+FDD0-FDD2 start with 0xEF
        var out = String.UnicodeScalarView()
        for scalar in safe.unicodeScalars {
            switch scalar {
            case TerminalStyle.boldMarker: out.append(contentsOf: "\u{1B}[1m".unicodeScalars)
            case TerminalStyle.dimMarker: out.append(contentsOf: "\u{1B}[2m".unicodeScalars)
            case TerminalStyle.resetMarker: out.append(contentsOf: "\u{1B}[0m".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Text that carries its own line ends.
    public static func text(_ text: String) {
        let text = terminal(text)
        buffer.withLock { buffer in
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 { write(&buffer) }
        }
    }

    /// One line: the text and a line end.
    public static func line(_ text: String) {
        let text = terminal(text)
        buffer.withLock { buffer in
            buffer.append(contentsOf: text.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 16 { write(&buffer) }
        }
    }

    /// Lines already made as bytes (a bulk command's millions of `1,hunt,stop`), written as
    /// `safeBytes` makes them.
    public static func asciiLines(_ bytes: [UInt8]) {
        let safe = safeBytes(bytes)
        buffer.withLock { buffer in
            buffer.append(contentsOf: safe)
            if buffer.count >= 1 << 16 { write(&buffer) }
        }
    }

    /// Bytes of lines as they may reach the terminal: as they are when every byte is printable
    /// ASCII or a line end, which nothing can misuse (no per-line work for millions of them);
    /// otherwise each line as `line` writes it (controls and direction characters escaped).
    public static func safeBytes(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) { return bytes }
        var out: [UInt8] = []
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (i, line) in lines.enumerated() {
            out.append(contentsOf: terminal(String(decoding: line, as: UTF8.self)).utf8)
            if i < lines.count - 1 { out.append(0x0A) }
        }
        return out
    }

    /// The errno of a failed write to standard output other than a closed pipe, or 0.
    static let writeFailure = Atomic<Int32>(0)

    /// Writes what is buffered.
    public static func flush() {
        buffer.withLock { write(&$0) }
    }

    private static func write(_ buffer: inout [UInt8]) {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(1, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 {
                    if errno == EINTR { continue }
                    // stdout closed (a pipe to `head`): drop the rest quietly. A full disk or an
                    // I/O error is remembered: the command then ends with exit 74.
                    if errno != EPIPE { writeFailure.store(errno, ordering: .relaxed) }
                    break
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// One line on standard error (unbuffered), after what standard output holds.
    public static func error(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((terminal(text) + "\n").utf8))
    }
}
