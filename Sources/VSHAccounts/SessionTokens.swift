import VSHCore

/// Session tokens: 256 random bits from the system's secure generator, shown once to the client
/// and kept by stores only as their SHA-256.
public enum SessionTokens {
    /// A new token (64 lower-case hex digits) and the hash a store keeps.
    public static func make() -> (token: String, hash: String) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = bytes.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
        return (token, hash(token))
    }

    /// The hash a store keeps for a token.
    public static func hash(_ token: String) -> String { SHA256.hex(Array(token.utf8)) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
