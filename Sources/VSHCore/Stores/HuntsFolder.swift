/// The folder of hunt files a league is synced from when it is opened.
public struct HuntsFolder: Hashable, Sendable {
    /// The folder (`./hunts` by default).
    public var path: String
    /// Whether a missing folder is an error: true when the user named it, false for the
    /// default, which may be absent (then the store's definitions are used as they are).
    public var required: Bool

    /// A folder and whether it must exist.
    public init(path: String, required: Bool) {
        self.path = path
        self.required = required
    }
}
