import Foundation
import Logging

/// An SMTP relay (`--smtp smtp://host:port`): where the service hands its e-mail.
public struct SMTPRelay: Sendable, Equatable {
    /// The relay's host name or address.
    public var host: String
    /// Its port (25 without one in the URL).
    public var port: Int
    /// The sender address of every message.
    public var from: String

    /// A relay from its parts.
    public init(host: String, port: Int, from: String) {
        self.host = host
        self.port = port
        self.from = from
    }

    /// A relay from `smtp://host[:port]`, or nil for anything else.
    public init?(url: String, from: String) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "smtp",
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
            components.user == nil, components.query == nil
        else { return nil }
        self.init(host: host, port: components.port ?? 25, from: from)
    }
}

/// One message: plain text, and optionally one attached file.
public struct Mail: Sendable {
    /// The recipient's address.
    public var to: String
    /// The subject (any Unicode: encoded for the header).
    public var subject: String
    /// The body, plain text.
    public var text: String
    /// An attachment: its file name, media type and bytes.
    public var attachment: (name: String, type: String, bytes: [UInt8])?

    /// A message from its parts.
    public init(
        to: String, subject: String, text: String,
        attachment: (name: String, type: String, bytes: [UInt8])? = nil
    ) {
        self.to = to
        self.subject = subject
        self.text = text
        self.attachment = attachment
    }

    /// Whether an address can go on an SMTP command line and a header as it is (no controls, no
    /// angle brackets, no spaces: nothing that could add a command or a header).
    static func isSafe(_ address: String) -> Bool {
        !address.isEmpty && address.utf8.count <= 254
            && address.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value != 0x7F && $0 != "<" && $0 != ">"
            }
    }

    /// The message as RFC 5322 text with CRLF line ends: MIME, UTF-8, base64 bodies.
    func rendered(from: String, date: Date, id: String) -> String {
        func base64Lines(_ bytes: [UInt8]) -> String {
            let text = Data(bytes).base64EncodedString()
            var lines: [Substring] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                lines.append(rest.prefix(76))
                rest = rest.dropFirst(76)
            }
            return lines.joined(separator: "\r\n")
        }
        let encodedSubject = "=?UTF-8?B?\(Data(subject.utf8).base64EncodedString())?="
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        var lines = [
            "From: \(from)", "To: \(to)", "Subject: \(encodedSubject)",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(id)>", "MIME-Version: 1.0",
        ]
        let textPart = [
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", "",
            base64Lines(Array(text.utf8)),
        ]
        if let attachment {
            let boundary = "vsh-\(id.prefix(24))"
            lines +=
                ["Content-Type: multipart/mixed; boundary=\"\(boundary)\"", "", "--\(boundary)"] + textPart
            lines += [
                "--\(boundary)", "Content-Type: \(attachment.type)", "Content-Transfer-Encoding: base64",
                "Content-Disposition: attachment; filename=\"\(attachment.name)\"", "",
                base64Lines(attachment.bytes), "--\(boundary)--",
            ]
        } else {
            lines += textPart
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// Why a message was not delivered to the relay.
public struct MailError: Error, CustomStringConvertible, Sendable {
    /// What went wrong (the relay's reply, or the connection's fault).
    public var description: String
}

/// Sends mail through an SMTP relay, one connection a message, off the request path: callers
/// queue a message and go on (a password-reset answer must not take longer when the address
/// exists). Failures are logged by player id, never by address.
public actor Mailer {
    /// The relay.
    public let relay: SMTPRelay
    private let logger: Logger
    private var queue: [(mail: Mail, note: String)] = []
    private var sending = false
    /// Messages handed to the relay, and messages that failed (for tests and diagnostics).
    public private(set) var sent = 0
    /// Messages the relay refused or could not be reached for.
    public private(set) var failed = 0

    /// A mailer for `relay`.
    public init(relay: SMTPRelay) {
        self.relay = relay
        self.logger = Logger(label: "vsh.mail")
    }

    /// Queues a message; `note` names it in the log (never the address).
    public func enqueue(_ mail: Mail, note: String) {
        queue.append((mail, note))
        if !sending {
            sending = true
            Task { await self.drain() }
        }
    }

    private func drain() async {
        while !queue.isEmpty {
            let (mail, note) = queue.removeFirst()
            let relay = self.relay
            do {
                try await Self.onBlockingQueue { try SMTPConnection.send(mail, relay: relay) }
                sent += 1
            } catch {
                failed += 1
                logger.warning("mail not sent (\(note)): \(error)")
            }
        }
        sending = false
    }

    private static let blocking = DispatchQueue(label: "vsh.smtp")

    private static func onBlockingQueue(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (reply: CheckedContinuation<Void, any Error>) in
            blocking.async {
                do {
                    try work()
                    reply.resume()
                } catch {
                    reply.resume(throwing: error)
                }
            }
        }
    }
}

/// One SMTP conversation on a blocking socket with 10-second timeouts (RFC 5321: EHLO, MAIL,
/// RCPT, DATA with dot-stuffing, QUIT).
enum SMTPConnection {
    static func send(_ mail: Mail, relay: SMTPRelay) throws {
        guard Mail.isSafe(mail.to), Mail.isSafe(relay.from) else {
            throw MailError(description: "unusable address")
        }
        let fd = try connect(host: relay.host, port: relay.port)
        defer { close(fd) }
        var reader = LineReader(fd: fd)
        func expect(_ code: Int) throws {
            var line = ""
            repeat {
                line = try reader.line()
            } while line.count >= 4 && line[line.index(line.startIndex, offsetBy: 3)] == "-"
            guard line.hasPrefix(String(code)) else {
                // The code only: a relay's text may repeat the address, which stays out of logs.
                throw MailError(description: "the relay answered \(line.prefix(3)) instead of \(code)")
            }
        }
        func command(_ text: String, _ code: Int) throws {
            try write(fd, text + "\r\n")
            try expect(code)
        }
        try expect(220)
        try command("EHLO vsh.localhost", 250)
        try command("MAIL FROM:<\(relay.from)>", 250)
        try command("RCPT TO:<\(mail.to)>", 250)
        try command("DATA", 354)
        let id = "\(UUID().uuidString.lowercased())@vsh"
        let body = mail.rendered(from: relay.from, date: Date(), id: id)
            .split(separator: "\r\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") ? "." + $0 : String($0) }.joined(separator: "\r\n")
        try write(fd, body + ".\r\n")
        try expect(250)
        try? command("QUIT", 221)
    }

    static func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw MailError(description: "cannot resolve the relay's host")
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if Foundation.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
                close(fd)
            }
            entry = info.pointee.ai_next
        }
        throw MailError(description: "cannot connect to the relay")
    }

    static func write(_ fd: Int32, _ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw MailError(description: "the connection to the relay broke") }
            bytes = bytes.dropFirst(n)
        }
    }

    /// CRLF-terminated lines from a socket, each at most 1000 bytes.
    struct LineReader {
        let fd: Int32
        var buffer: [UInt8] = []

        init(fd: Int32) { self.fd = fd }

        mutating func line() throws -> String {
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    let line = buffer[..<end].filter { $0 != 0x0D }
                    buffer.removeSubrange(...end)
                    return String(decoding: line, as: UTF8.self)
                }
                guard buffer.count < 1000 else {
                    throw MailError(description: "the relay sent an overlong line")
                }
                var chunk = [UInt8](repeating: 0, count: 512)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else {
                    throw MailError(description: "the relay closed the connection or timed out")
                }
                buffer += chunk[..<n]
            }
        }
    }
}
