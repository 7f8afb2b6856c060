import NIOSSL

/// How `https://` callbacks check their receivers: the certificate and host name against the system's roots and those of
/// `--callback-ca-file` (PEM), TLS 1.2 or later.
public struct CallbackTrust: Sendable {
    /// The roots added to the system's.
    let additionalRoots: [NIOSSLCertificate]

    /// The system's roots only.
    public init() { additionalRoots = [] }

    /// The system's roots and the certificates of a PEM file, read now, so a bad file stops the process at its start.
    /// - Throws: `CallbackTrustProblem` when the file cannot be read or holds no PEM certificate.
    public init(caFile path: String) throws(CallbackTrustProblem) {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw CallbackTrustProblem("cannot read PEM certificates from that file (unreadable, or not PEM)")
        }
        guard !certificates.isEmpty else { throw CallbackTrustProblem("holds no PEM certificate") }
        additionalRoots = certificates
    }

    /// The client TLS configuration: full verification against these roots, TLS 1.2 or later.
    var configuration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        tls.trustRoots = .default
        if !additionalRoots.isEmpty { tls.additionalTrustRoots = [.certificates(additionalRoots)] }
        return tls
    }
}

/// Why `--callback-ca-file` cannot be used, as human text.
public struct CallbackTrustProblem: Error, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
