import HTTPTypes
import Testing
import VSHServer

/// Who the client is behind a proxy (`--trust-proxy`): only a trusted peer may name it.
@Suite struct ClientAddressTests {
    @Test func rangesParseAndContainAddresses() throws {
        let loopback = try #require(AddressRange("127.0.0.1/32"))
        #expect(loopback.contains("127.0.0.1") && !loopback.contains("127.0.0.2"))
        let private10 = try #require(AddressRange("10.1.2.3/8"))
        #expect(private10.description == "10.0.0.0/8")
        #expect(private10.contains("10.255.0.1") && !private10.contains("11.0.0.1"))
        // An IPv4 peer seen on an IPv6 socket.
        #expect(private10.contains("::ffff:10.9.9.9"))
        let six = try #require(AddressRange("fd00::/8"))
        #expect(six.contains("fd12:3456::1") && !six.contains("fe80::1") && !six.contains("10.0.0.1"))
        #expect(AddressRange("::1")?.contains("::1") == true)
        #expect(AddressRange("0.0.0.0/0")?.contains("203.0.113.9") == true)
        for bad in ["", "10.0.0.0/33", "10.0.0/8", "example.org", "10.0.0.0/-1", "::/129", "1.2.3.4/８"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test func onlyATrustedPeerNamesTheClient() {
        let trusted = [AddressRange("127.0.0.1/32")!, AddressRange("10.0.0.0/8")!]
        func client(_ peer: String, _ fields: [(String, String)]) -> String {
            var headers = HTTPFields()
            for (name, value) in fields {
                headers.append(HTTPField(name: HTTPField.Name(name)!, value: value))
            }
            return ClientAddress.decide(peer: peer, headers: headers, trusted: trusted)
        }
        // The last X-Forwarded-For hop that is not a trusted proxy.
        #expect(client("127.0.0.1", [("X-Forwarded-For", "203.0.113.7")]) == "203.0.113.7")
        #expect(
            client("127.0.0.1", [("X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.0.0.5")]) == "203.0.113.7"
        )
        #expect(
            client("127.0.0.1", [("X-Forwarded-For", "198.51.100.1"), ("X-Forwarded-For", "203.0.113.7")])
                == "203.0.113.7")
        // Forwarded (RFC 7239) comes first, with quoted, bracketed and ported nodes.
        #expect(
            client(
                "127.0.0.1",
                [
                    ("Forwarded", #"for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711""#),
                    ("X-Forwarded-For", "203.0.113.7"),
                ]) == "2001:db8:cafe::17")
        #expect(client("127.0.0.1", [("Forwarded", #"for="192.0.2.43:47011""#)]) == "192.0.2.43")
        // A peer outside the trusted ranges names nobody: a forged header changes nothing.
        #expect(client("198.51.100.9", [("X-Forwarded-For", "203.0.113.7")]) == "198.51.100.9")
        #expect(client("198.51.100.9", [("Forwarded", "for=203.0.113.7")]) == "198.51.100.9")
        // Nothing to go by: the peer.
        #expect(client("127.0.0.1", []) == "127.0.0.1")
        for garbage in ["unknown", "_hidden", "", "203.0.113.7; drop table", "not an address"] {
            #expect(client("127.0.0.1", [("X-Forwarded-For", garbage)]) == "127.0.0.1", "\(garbage)")
            #expect(client("127.0.0.1", [("Forwarded", "for=\(garbage)")]) == "127.0.0.1", "\(garbage)")
        }
        // Every hop a trusted proxy: the peer.
        #expect(client("127.0.0.1", [("X-Forwarded-For", "10.0.0.9")]) == "127.0.0.1")
        // Nobody trusted: the peer, whatever the headers say.
        #expect(
            ClientAddress.decide(
                peer: "127.0.0.1", headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.7"], trusted: [])
                == "127.0.0.1")
    }
}
