/// The command line's own refusals: an option or argument that is wrong, in words that name
/// the option. (The libraries throw typed errors; `ErrorWords` gives them the CLI's words.)
public struct InputError: Error, CustomStringConvertible, Sendable {
    /// The exit status the CLI uses for this error.
    public let exitStatus: ExitStatus
    /// What is wrong, naming the culprit.
    public let message: String

    /// An error with its message and exit status (65 unless said).
    public init(_ message: String, status: ExitStatus = .dataError) {
        self.message = message
        self.exitStatus = status
    }

    /// The message.
    public var description: String { message }
}
