internal import Crypto

/// SHA-256 (FIPS 180-4), streaming.
///
/// vsh hashes hunt files (to know when to re-sync) and photos, three times each (the file, its
/// image data and its decoded pixels, to recognise a re-used photo). The digest is swift-crypto's
/// (BoringSSL's on Linux, on the CPU's SHA instructions where it has them), which vsh already links
/// through PostgresNIO and the accounts' bcrypt: the core keeps no C of its own. `HashSpeedTests`
/// prints its rate on 16 MiB beside `sha256sum`'s answer (docs/speed.md).
public struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    /// An empty hasher.
    public init() {}

    /// Hashes more bytes.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            hasher.update(bufferPointer: UnsafeRawBufferPointer(buffer))
        }
        if done == nil { hasher.update(data: Array(bytes)) }
    }

    /// The digest as 64 lower-case hex digits.
    public mutating func finalizeHex() -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in hasher.finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of `bytes` as 64 lower-case hex digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}
