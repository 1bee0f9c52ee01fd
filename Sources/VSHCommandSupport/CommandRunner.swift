import ArgumentParser
import Foundation
import Synchronization
public import VSHCore

/// Runs a command's body and turns every error into one line on stderr and
/// the documented exit status (DESIGN.md), never a stack trace.
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
        } catch let error as any ExitStatusProviding {
            Output.error("\(tool): \(oneLine(ErrorWords.message(error)))")
            status = error.exitStatus
        } catch {
            Output.error("\(tool): internal error: \(oneLine(error))")
            status = .internalError
        }
        Output.flush()
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

    /// Text that carries its own line ends.
    public static func text(_ text: String) {
        buffer.withLock { buffer in
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 { write(&buffer) }
        }
    }

    /// One line: the text and a line end.
    public static func line(_ text: String) {
        buffer.withLock { buffer in
            buffer.append(contentsOf: text.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 16 { write(&buffer) }
        }
    }

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
                    break  // stdout closed (a pipe to `head`): drop the rest quietly.
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// One line on standard error (unbuffered), after what standard output holds.
    public static func error(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
