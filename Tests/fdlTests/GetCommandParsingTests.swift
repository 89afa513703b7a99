import ArgumentParser
import FileDownload
@testable import FileDownloadCLI
import Foundation
import Testing

@Suite struct GetCommandParsingTests {
    func settings(_ arguments: [String]) throws -> GetSettings {
        try GetCommand.parse(arguments).settings()
    }

    @Test func optionsBecomeSettings() throws {
        let hex = String(repeating: "ab", count: 32)
        let s = try settings(["http://h/a.bin", "sftp://h/b", "-d", "/tmp/out", "-j", "2", "--sha256", hex,
                              "--max-connections-per-host", "3", "--retry", "1", "--timeout", "2.5", "--header", "X-Token: abc", "--json",
                              "--known-hosts", "/k", "--identity", "/id", "--accept-new-host-keys"])
        #expect(s.urls.map(\.absoluteString) == ["http://h/a.bin", "sftp://h/b"])
        #expect(s.outputDirectory.path == "/tmp/out")
        #expect(s.concurrency == 2)
        #expect(s.maxConnectionsPerHost == 3)
        #expect(s.sha256 == [hex])
        #expect(s.retries == 1)
        #expect(s.requestTimeout == .milliseconds(2_500))
        #expect(s.headers == [HeaderField(name: "X-Token", value: "abc")])
        #expect(s.output == .json)
        #expect(s.knownHostsFile == "/k")
        #expect(s.identityFiles == ["/id"])
        #expect(s.acceptNewHostKeys)
        #expect(!s.allowHTTPSDowngrade)
        #expect(s.stateDirectory == "/tmp/out/.fdl")
    }

    @Test(arguments: [
        (["http://h/a", "--sha256", "xyz"], "is not 64 hexadecimal digits"),
        ([], "give at least one URL"),
        (["not a url"], "is not an absolute URL"),
        (["http:///path"], "has no host"),
        (["http://h/a", "-j", "0"], "-j must be between 1 and 64"),
        (["http://h/a", "--max-connections-per-host", "0"], "--max-connections-per-host must be between 1 and 64"),
        (["http://h/a", "--header", "nocolon"], "must look like 'Name: value'"),
        (["http://h/a", "--name", "../x"], "is not a plain file name"),
        (["http://h/a", "http://h/b", "-o", "x"], "-o NAME names the file of one URL"),
        (["http://h/a", "-o", "downloads/"], "to download into a directory use -d DIR"),
        (["http://h/a", "-d", "/", "-o", "tmp"], "to download into a directory use -d DIR"),
        (["http://h/a", "--sha256", String(repeating: "a", count: 64), "--sha256", String(repeating: "b", count: 64)],
         "give at most one per URL"),
    ])
    func badCommandLinesAreRejectedWithAHelpfulMessage(arguments: [String], message: String) {
        do {
            _ = try settings(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(GetCommand.message(for: error).contains(message))
        }
    }

    @Test func outputNamesTheFileAndDirIsTheDirectory() throws {
        let s = try settings(["http://h/a.bin", "-o", "b.bin", "-d", "/tmp/out"])
        #expect(s.names == ["b.bin"])
        #expect(s.outputDirectory.path == "/tmp/out")
    }

    @Test func secretsInHeadersAreNotEchoedInErrors() {
        do {
            _ = try settings(["http://h/a", "--header", "Authorization Bearer secret123"])
            Issue.record("accepted")
        } catch {
            #expect(!GetCommand.message(for: error).contains("secret123"))
        }
    }
}
