import FileDownload
@testable import FileDownloadHTTP
import FileDownloadTestSupport
import Foundation
import Testing

/// FTP never goes through a proxy and never goes around one silently: a transfer a proxy applies to
/// fails before connecting, not retryable, saying how to connect directly.
@Suite("FTP with proxy variables", .timeLimit(.minutes(2)))
struct FTPProxyTests {
    @Test("the variables as curl reads them for ftp and ftps URLs")
    func variables() throws {
        let ftp = URL(string: "ftp://files.example.org/pub/a.iso")!
        let ftps = URL(string: "ftps://files.example.org/pub/a.iso")!
        func problem(_ url: URL, _ variables: [String: String]) -> String? {
            FTPTransport.proxyProblem(for: url, own: nil, variables: variables)
        }
        #expect(problem(ftp, [:]) == nil)
        #expect(problem(ftp, ["http_proxy": "proxy:3128", "https_proxy": "proxy:3128"]) == nil)
        #expect(problem(ftp, ["ftp_proxy": "proxy:3128"])?.contains("ftp_proxy") == true)
        #expect(problem(ftp, ["FTP_PROXY": "proxy:3128"])?.contains("FTP_PROXY") == true)
        #expect(problem(ftps, ["ftp_proxy": "proxy:3128"]) == nil)
        #expect(problem(ftps, ["ftps_proxy": "proxy:3128"])?.contains("ftps_proxy") == true)
        #expect(problem(ftps, ["all_proxy": "socks5h://proxy:1080"])?.contains("all_proxy") == true)
        #expect(problem(ftp, ["ALL_PROXY": "proxy:3128"])?.contains("ALL_PROXY") == true)
        #expect(problem(ftp, ["ftp_proxy": "", "all_proxy": "proxy:3128"])?.contains("all_proxy") == true)
        #expect(problem(ftp, ["all_proxy": "proxy:3128", "no_proxy": "example.org"]) == nil)
        #expect(problem(ftp, ["all_proxy": "proxy:3128", "NO_PROXY": ".example.org"]) == nil)
        #expect(problem(ftp, ["all_proxy": "proxy:3128", "no_proxy": "other.org"]) != nil)
        #expect(problem(ftp, ["all_proxy": "proxy:3128", "no_proxy": "*"]) == nil)
    }

    @Test("no_proxy matches names, subdomains, addresses and CIDR ranges as libcurl does")
    func noProxyMatching() {
        let cases: [(String, String, Bool)] = [
            ("example.org", "example.org", true), ("example.org", "a.b.example.org", true),
            (".example.org", "a.example.org", true), ("EXAMPLE.org", "files.example.ORG", true),
            ("example.org", "badexample.org", false), ("a.example.org", "example.org", false),
            ("localhost, 127.0.0.1", "127.0.0.1", true), ("10.0.0.0/8", "10.1.2.3", true),
            ("10.0.0.0/8", "11.1.2.3", false), ("127.0.0.1", "127.0.0.2", false),
            ("::1", "[::1]", true), ("fd00::/8", "fd12::5", true), ("fd00::/8", "10.0.0.1", false),
            ("127.0.0.1", "localhost", false), ("*", "anything.example", true), ("", "example.org", false),
        ]
        for (list, host, expected) in cases {
            #expect(FTPTransport.noProxy(list, matches: host) == expected, "no_proxy=\(list) host=\(host)")
        }
    }

    @Test("all_proxy set: the download fails once, not retryable, without connecting; the proxy's password is not shown")
    func proxyRefused() async throws {
        try await FTPFixture.with { fixture in
            try fixture.serve("p.bin", size: 10_000, seed: 9)
            let transport = try FTPTransport(configuration: .init(
                proxyVariables: ["all_proxy": "http://alice:s3cret@127.0.0.1:9", "PATH": "/bin"]))
            #expect(transport.configuration.proxyVariables.keys.sorted() == ["all_proxy"])
            let run = try await fixture.download(fixture.server.url("p.bin"), transport: transport)
            let error = try #require(run.error)
            #expect(error.code == .transport)
            #expect(!error.isRetryable)
            #expect(error.message.contains("FTP through a proxy is not supported"))
            #expect(error.message.contains("no_proxy=127.0.0.1"))
            #expect(!error.message.contains("s3cret"))
            #expect(run.events.filter { if case .interrupted = $0 { true } else { false } }.isEmpty)
            #expect(fixture.server.commands.isEmpty, "connected directly: \(fixture.server.commands)")
        }
    }

    @Test("the host in no_proxy: the download goes direct, byte-exact")
    func noProxyGoesDirect() async throws {
        try await FTPFixture.with { fixture in
            let content = try fixture.serve("d.bin", size: 10_000, seed: 10)
            let transport = try FTPTransport(configuration: .init(
                proxyVariables: ["ftp_proxy": "http://127.0.0.1:9", "no_proxy": "localhost,127.0.0.1"]))
            let run = try await fixture.download(fixture.server.url("d.bin"), transport: transport)
            let file = try #require(run.file, "\(String(describing: run.error))")
            #expect(try Data(contentsOf: file) == content)
        }
    }

    @Test("a download's own proxy (TransferOptions.proxy) fails the transfer the same way")
    func ownProxyRefused() async throws {
        let directory = try TemporaryDirectory("ftp-proxy")
        defer { directory.remove() }
        let sink = try TransferSink(path: directory.file("own.part").path, requestedOffset: 0)
        defer { sink.seal() }
        let transport = try FTPTransport(configuration: .init(proxyVariables: [:]))
        let request = TransferRequest(downloadID: "own", url: URL(string: "ftp://127.0.0.1:1/f.bin")!,
                                      options: TransferOptions(proxy: URL(string: "http://bob:pw@proxy.example:3128")!))
        let error = await #expect(throws: DownloadError.self) { try await transport.transfer(request, into: sink) }
        #expect(error?.code == .transport)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("not supported") == true)
        #expect(error?.message.contains("pw@") == false)
        await transport.shutdown()
    }
}
