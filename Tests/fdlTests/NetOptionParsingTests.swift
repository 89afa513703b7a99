import ArgumentParser
import FileDownload
@testable import FileDownloadCLI
import Foundation
import Testing

/// `--proxy`, `--noproxy`, `--content-disposition`, `--mirror` and `-N` become settings, and the
/// proxy settings combine the environment and the options as curl does.
@Suite struct NetOptionParsingTests {
    func settings(_ arguments: [String]) throws -> GetSettings {
        try GetCommand.parse(arguments).settings()
    }

    @Test func optionsBecomeSettings() throws {
        let s = try settings(["http://h/a.bin", "-d", "/tmp/out", "--proxy", "http://p:3128", "--noproxy", "a,b",
                              "--content-disposition", "--mirror", "http://m1/a.bin", "--mirror", "sftp://m2/a.bin", "-N"])
        #expect(s.proxy == "http://p:3128")
        #expect(s.noProxy == "a,b")
        #expect(s.usesServerFileName)
        #expect(s.timestamping)
        #expect(s.mirrors.map { $0.map(\.absoluteString) } == [["http://m1/a.bin", "sftp://m2/a.bin"]])
        let plain = try settings(["http://h/a.bin"])
        #expect(plain.proxy == nil && plain.noProxy == nil && !plain.usesServerFileName && !plain.timestamping)
        #expect(plain.mirrors.isEmpty)
        #expect(try settings(["http://h/a", "--timestamping"]).timestamping)
    }

    @Test func badProxiesAndMirrorsAreUsageErrors() throws {
        #expect(throws: (any Error).self) { try settings(["http://h/a", "--proxy", "ftp://p:21"]) }
        #expect(throws: (any Error).self) { try settings(["http://h/a", "--proxy", "http://"]) }
        #expect(throws: (any Error).self) { try settings(["http://h/a", "http://h/b", "--mirror", "http://m/a"]) }
        #expect(throws: (any Error).self) { try settings(["http://h/a", "--mirror", "not a url"]) }
        #expect(try settings(["http://h/a", "--proxy", ""]).proxy == "")
        #expect(try settings(["http://h/a", "--proxy", "socks5h://p:1080"]).proxy == "socks5h://p:1080")
    }

    @Test func proxySettingsCombineTheEnvironmentAndTheOptionsAsCurl() throws {
        let environment = ["http_proxy": "http://env:1", "https_proxy": "http://envs:2", "no_proxy": "localhost"]
        var s = try settings(["http://h/a"])
        var proxies = s.proxySettings(environment: environment)
        #expect(proxies.http?.absoluteString == "http://env:1")
        #expect(proxies.https?.absoluteString == "http://envs:2")
        #expect(proxies.noProxy == ["localhost"])

        s.proxy = "opt:3"
        proxies = s.proxySettings(environment: environment)
        #expect(proxies.http?.absoluteString == "http://opt:3")
        #expect(proxies.https?.absoluteString == "http://opt:3")
        #expect(proxies.noProxy == ["localhost"], "no_proxy still applies to --proxy")

        s.noProxy = "*"
        #expect(s.proxySettings(environment: environment).noProxy == ["*"])
        s.proxy = ""
        proxies = s.proxySettings(environment: environment)
        #expect(proxies.http == nil && proxies.https == nil, "--proxy '' connects directly")
    }
}
