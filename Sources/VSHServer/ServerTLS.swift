import Foundation
import NIOSSL

/// HTTPS for `vsh serve --tls-cert FILE --tls-key FILE` (swift-nio-ssl): phones give a page the
/// camera and the position over HTTPS only, so a small event without a proxy needs it. TLS 1.2 and
/// 1.3, HTTP/1.1, the certificate chain and key as PEM files (Let's Encrypt's fullchain.pem and
/// privkey.pem as they are).
public struct ServerTLS: Sendable {
    let configuration: TLSConfiguration

    /// Reads the certificate chain and the key.
    /// - Throws: `ServerTLSError` naming the file and what is wrong with it.
    public static func load(certificate: String, key: String) throws -> ServerTLS {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw ServerTLSError(file: certificate, problem: "not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw ServerTLSError(file: certificate, problem: "holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ServerTLSError(file: key, problem: "not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        return ServerTLS(configuration: configuration)
    }
}

/// A certificate or key file vsh cannot use.
public struct ServerTLSError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public let file: String
    /// What is wrong with it.
    public let problem: String
    /// The file and the problem.
    public var description: String { "\(file): \(problem)" }
}
