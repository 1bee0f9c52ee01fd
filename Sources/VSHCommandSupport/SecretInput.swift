import Foundation

/// Secrets typed by a person or piped in: never taken from the command line, where `ps` shows them.
public enum SecretInput {
    /// One line of standard input without its line end; on a terminal, `prompt` goes to standard
    /// error and the typing is not echoed. Nil at the end of input.
    public static func readLine(prompt: String) -> String? {
        guard isatty(0) == 1 else { return Swift.readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(0, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &quiet)
        defer {
            tcsetattr(0, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return Swift.readLine(strippingNewline: true)
    }
}
