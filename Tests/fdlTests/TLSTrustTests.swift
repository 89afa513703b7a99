@testable import FileDownloadCLI
import Testing

/// `TLSTrust.resolve`: the command line's options and the environment, as curl reads them.
@Suite struct TLSTrustTests {
    @Test func optionsWinOverEveryVariable() {
        let environment = ["CURL_CA_BUNDLE": "/env/bundle.pem", "SSL_CERT_FILE": "/env/file.pem", "SSL_CERT_DIR": "/env/dir"]
        let trust = TLSTrust.resolve(caBundle: "/opt/ca.pem", caDirectory: nil, insecure: false, environment: environment)
        #expect(trust == TLSTrust(caBundlePath: "/opt/ca.pem"))
        let directory = TLSTrust.resolve(caBundle: nil, caDirectory: "/opt/certs", insecure: true, environment: environment)
        #expect(directory == TLSTrust(caDirectoryPath: "/opt/certs", skipsVerification: true))
    }

    @Test func curlCABundleWinsOverSSLCertFileAndDir() {
        let trust = TLSTrust.resolve(caBundle: nil, caDirectory: nil, insecure: false,
                                     environment: ["CURL_CA_BUNDLE": "/b.pem", "SSL_CERT_FILE": "/f.pem", "SSL_CERT_DIR": "/d"])
        #expect(trust == TLSTrust(caBundlePath: "/b.pem"))
    }

    @Test func sslCertFileAndDirTogether() {
        let trust = TLSTrust.resolve(caBundle: nil, caDirectory: nil, insecure: false,
                                     environment: ["SSL_CERT_FILE": "/f.pem", "SSL_CERT_DIR": "/d", "CURL_CA_BUNDLE": ""])
        #expect(trust == TLSTrust(caBundlePath: "/f.pem", caDirectoryPath: "/d"))
        #expect(TLSTrust.resolve(caBundle: nil, caDirectory: nil, insecure: false, environment: [:]) == TLSTrust())
    }
}
