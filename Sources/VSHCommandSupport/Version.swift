/// The release of vsh and vsh-master (`--version`).
public enum VSHVersion {
    /// Semantic version: 0.x while the HTTP contract and the store protocols settle.
    public static let current = "0.6.0"
}
