public import Foundation

/// HTTPS with a private CA in front of an ``S3Server``: nginx (``NginxServer``) with the server
/// certificate of a fresh ``TestCertificates`` CA, passing every request to moto unchanged, the
/// `Host` field included (SigV4 signs it, and moto checks the signature against the one it gets).
///
/// Only the TLS endpoint ``endpoint`` is for the tests; ``caCertificate`` is the CA to trust.
/// Stopped by ``stop()``; its certificates and nginx's files are removed with it.
public struct S3TLSFront: Sendable {
    /// The CA, server certificate and keys, in a scratch directory of their own.
    public let certificates: TestCertificates
    /// nginx, proxying `/` of its HTTP and HTTPS ports to moto.
    public let nginx: NginxServer
    private let directory: TemporaryDirectory

    /// `https://127.0.0.1:PORT`: the S3 endpoint over TLS, signed by ``caCertificate``'s CA.
    public var endpoint: URL { URL(string: "https://\(nginx.host):\(nginx.httpsPort)")! }

    /// The PEM file of the private CA that signed nginx's certificate.
    public var caCertificate: URL { certificates.caCertificate }

    /// Makes a CA and starts nginx on HTTPS in front of `server`. Blocks until nginx listens.
    ///
    /// - Throws: a ``TestFailure`` when `openssl` or nginx is missing or nginx does not start.
    public init(for server: S3Server) throws {
        guard let port = server.endpoint.port else {
            throw TestFailure("the S3 server's endpoint \(server.endpoint) has no port")
        }
        directory = try TemporaryDirectory("s3-tls")
        do {
            certificates = try TestCertificates(in: directory.url)
            let www = directory.file("www")
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
            nginx = try NginxServer(root: www, certificates: certificates, locations: """
                location / {
                    proxy_pass http://127.0.0.1:\(port);
                    proxy_set_header Host $http_host;
                    proxy_http_version 1.1;
                    proxy_buffering off;
                }
                """)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// Stops nginx and removes the certificates.
    public func stop() {
        nginx.stop()
        directory.remove()
    }
}
