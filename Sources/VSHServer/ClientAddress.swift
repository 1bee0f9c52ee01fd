#if canImport(Glibc)
    import Glibc
#endif
import Foundation
public import HTTPTypes
import Hummingbird

/// A range of IP addresses in CIDR notation (`10.0.0.0/8`, `127.0.0.1/32`, `fd00::/8`, or one
/// address, which is its own /32 or /128): the proxies `--trust-proxy` names.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's bytes (4 for IPv4, 16 for IPv6).
    let network: [UInt8]
    /// How many leading bits must match.
    let prefix: Int

    /// The range `text` names, or nil when it is not an address with an optional prefix length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = AddressRange.bytes(String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            prefix = value
        }
        // The network's own bytes: host bits cleared, so that 10.1.2.3/8 means 10.0.0.0/8.
        var network = bytes
        for index in network.indices {
            let keep = max(0, min(8, prefix - index * 8))
            network[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        self.network = network
        self.prefix = prefix
    }

    /// Whether the address `text` lies in the range (an IPv4 address mapped into IPv6,
    /// `::ffff:10.0.0.1`, counts as the IPv4 address).
    public func contains(_ text: String) -> Bool {
        guard var bytes = AddressRange.bytes(text) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }),
            bytes[10] == 0xFF, bytes[11] == 0xFF
        {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        for index in bytes.indices {
            let keep = max(0, min(8, prefix - index * 8))
            if keep == 0 { break }
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
            if bytes[index] & mask != network[index] { return false }
        }
        return true
    }

    /// The range as CIDR text, its network's address and prefix length (`10.0.0.0/8`).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        network.withUnsafeBytes { raw in
            _ = inet_ntop(
                network.count == 4 ? AF_INET : AF_INET6, raw.baseAddress, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "/\(prefix)"
    }

    /// The bytes of an IPv4 or IPv6 address in text, or nil.
    static func bytes(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 64, !text.isEmpty else { return nil }
        var four = in_addr()
        if inet_pton(AF_INET, text, &four) == 1 {
            return withUnsafeBytes(of: &four) { Array($0) }
        }
        var six = in6_addr()
        if inet_pton(AF_INET6, text, &six) == 1 {
            return withUnsafeBytes(of: &six) { Array($0) }
        }
        return nil
    }
}

/// Who the client is when the peer is a trusted proxy: the `Forwarded` header's `for=` (RFC 7239),
/// else `X-Forwarded-For`, read from the right, skipping the hops that are trusted proxies
/// themselves; the first address that is not is the client. A peer outside the trusted ranges
/// names nobody (its headers are ignored, so a forged one changes nothing), and neither does a
/// header that holds no address (`unknown`, an obfuscated name, garbage).
public enum ClientAddress {
    static let forwarded = HTTPField.Name("Forwarded")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address for a request from `peer` with `headers`.
    public static func decide(peer: String, headers: HTTPFields, trusted: [AddressRange]) -> String {
        guard !trusted.isEmpty, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        let hops: [String]
        let named = headers[values: forwarded]
        if !named.isEmpty {
            hops = named.flatMap { $0.split(separator: ",") }.map { element in
                // Every pair must be `token=value`: an element with anything else names nobody.
                var found = ""
                for pair in element.split(separator: ";", omittingEmptySubsequences: false) {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { return "" }
                    if parts[0].trimmingWhiteSpace().lowercased() == "for" {
                        found = nodeAddress(String(parts[1]).trimmingWhiteSpace())
                    }
                }
                return found
            }
        } else {
            hops = headers[values: forwardedFor].flatMap { $0.split(separator: ",") }.map {
                $0.trimmingWhiteSpace()
            }
        }
        for hop in hops.reversed() {
            guard AddressRange.bytes(hop) != nil else { return peer }
            if !trusted.contains(where: { $0.contains(hop) }) { return hop }
        }
        return peer
    }

    /// The address of a `Forwarded` node: `192.0.2.60`, `"192.0.2.60:4711"`, `"[2001:db8::17]:4711"`.
    static func nodeAddress(_ node: String) -> String {
        var text = Substring(node)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return "" }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            return String(text[..<colon])
        }
        return String(text)
    }
}

/// Decides each request's client address (`ClientAddress.decide`) before anything counts it.
struct ClientAddressMiddleware: RouterMiddleware {
    let trusted: [AddressRange]

    func handle(
        _ request: Request, context: VSHRequestContext,
        next: (Request, VSHRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !trusted.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = ClientAddress.decide(
            peer: context.peerAddress, headers: request.headers, trusted: trusted)
        return try await next(request, context)
    }
}
