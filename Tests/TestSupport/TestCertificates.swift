public import Foundation

/// A throwaway CA, a server certificate for 127.0.0.1 / localhost and a client certificate it
/// signed, made with the `openssl` command line in `directory`.
public struct TestCertificates: Sendable {
    public let caCertificate: URL
    public let serverCertificate: URL
    public let serverKey: URL
    public let clientCertificate: URL
    public let clientKey: URL

    public init(in directory: URL) throws {
        caCertificate = directory.appendingPathComponent("ca.pem")
        serverCertificate = directory.appendingPathComponent("server.pem")
        serverKey = directory.appendingPathComponent("server.key")
        clientCertificate = directory.appendingPathComponent("client.pem")
        clientKey = directory.appendingPathComponent("client.key")
        let caKey = directory.appendingPathComponent("ca.key").path
        let csr = directory.appendingPathComponent("server.csr").path
        let ext = directory.appendingPathComponent("server.ext")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            .write(to: ext, atomically: true, encoding: .utf8)
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", caKey, "-out", caCertificate.path, "-days", "2", "-subj", "/CN=fdl test CA"])
        try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", serverKey.path, "-out", csr, "-subj", "/CN=127.0.0.1"])
        try Self.openssl(["x509", "-req", "-in", csr, "-CA", caCertificate.path, "-CAkey", caKey, "-CAcreateserial",
                          "-out", serverCertificate.path, "-days", "2", "-extfile", ext.path])
        let clientCSR = directory.appendingPathComponent("client.csr").path
        let clientExt = directory.appendingPathComponent("client.ext")
        try "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n".write(to: clientExt, atomically: true, encoding: .utf8)
        try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", clientKey.path, "-out", clientCSR, "-subj", "/CN=fdl test client"])
        try Self.openssl(["x509", "-req", "-in", clientCSR, "-CA", caCertificate.path, "-CAkey", caKey, "-CAcreateserial",
                          "-out", clientCertificate.path, "-days", "2", "-extfile", clientExt.path])
    }

    private static func openssl(_ arguments: [String]) throws {
        try ChildProcess.runChecked(["/usr/bin/openssl"] + arguments, limit: .seconds(120))
    }
}
