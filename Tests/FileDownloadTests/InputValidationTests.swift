import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// The one input validation every front end uses (`InputValidation`): what passes, what is
/// refused with which code and message, and that the Downloader's `add` applies the same rules.
@Suite("Input validation: ids, URLs, header fields, SHA-256")
struct InputValidationTests {
    /// The error `body` throws, or `nil` (recorded as an issue) when it throws none.
    func refusal(_ body: () throws -> Void) -> DownloadError? {
        do {
            try body()
            Issue.record("accepted")
            return nil
        } catch {
            #expect(error is DownloadError, "\(error)")
            return error as? DownloadError
        }
    }

    @Test("an id of 1 to 256 scalars without control characters or line breaks passes, whatever else it has")
    func goodIDs() throws {
        for id in ["a", "ä é ?#%+&=;,", "sub/dir/name", "e\u{301}", "日本語", String(repeating: "x", count: 256), " leading space"] {
            try InputValidation.checkIdentifier(id)
        }
    }

    @Test("an empty, oversized or control-character id is refused with one message, the character shown escaped",
          arguments: ["", String(repeating: "x", count: 257), "e" + String(repeating: "\u{301}", count: 256),
                      "a\nb", "a\rb", "a\0b", "a\tb", "a\u{1B}[31mb", "a\u{7F}", "a\u{85}b", "a\u{2028}b", "a\u{2029}b"])
    func badIDs(id: String) {
        let error = refusal { try InputValidation.checkIdentifier(id) }
        #expect(error?.code == .invalidIdentifier)
        #expect(error?.message.hasPrefix("an id must be 1 to 256 characters without control characters or line breaks") == true)
        #expect(error?.message.unicodeScalars.contains { $0.properties.generalCategory == .control } == false, "\(error?.message ?? "")")
        #expect((error?.message.count ?? 0) < 200, "a long id is shown cut")
    }

    @Test("a URL with a scheme, a host and a port of 1 to 65535 (or none) passes")
    func goodURLs() throws {
        for text in ["https://example.org/f", "http://h:1/f", "http://h:65535/f", "http://h:0080/f", "http://h:/f",
                     "http://[::1]:8080/f", "sftp://user@h:22/f", "file:///tmp/f", "mock://files/a"] {
            #expect(try InputValidation.url(text).absoluteString == text)
        }
    }

    @Test("a port outside 1...65535 is refused, however it is written, and no password is shown",
          arguments: ["http://h:99999/f", "http://h:0/f", "http://h:65536/f", "http://h:99999999999999999999/f",
                      "http://user:hunter2@h:99999/f", "http://[::1]:70000/f"])
    func badPorts(text: String) {
        let error = refusal { _ = try InputValidation.url(text) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("; a port is 1 to 65535") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test("text that is not an absolute URL, or a URL without a host, is refused without its password")
    func badURLs() {
        let notURL = refusal { _ = try InputValidation.url("127.0.0.1/file") }
        #expect(notURL?.code == .invalidURL && notURL?.message == "'127.0.0.1/file' is not an absolute URL; write it with its scheme, like https://host/file")
        let noHost = refusal { _ = try InputValidation.url("http:///path") }
        #expect(noHost?.code == .invalidURL && noHost?.message.contains("has no host") == true)
        let secret = refusal { _ = try InputValidation.url("user:hunter2@host/x") }
        #expect(secret?.code == .invalidURL && secret?.message.contains("hunter2") == false, "\(secret?.message ?? "")")
        let spaces = refusal { _ = try InputValidation.url("not a url") }
        #expect(spaces?.code == .invalidURL)
    }

    @Test("a header field passes with a token name and a value without control characters but tab")
    func goodHeaders() throws {
        let field = try InputValidation.header(name: "X-Token_1!#$%&'*+-.^`|~", value: "a b\tc ünïcode", isSecret: true)
        #expect(field.isSecret && field.value == "a b\tc ünïcode")
    }

    @Test("a header name that is no token, or a value with CR, LF, NUL or another control character, is refused; the value is never shown",
          arguments: [("", "v"), ("Bad Name", "v"), ("X:Y", "v"), ("Ünï", "v"), ("X\r\nInjected", "v"),
                      ("X-Token", "secret\r\nInjected: 1"), ("X-Token", "secret\n"), ("X-Token", "sec\0ret"), ("X-Token", "secret\u{7F}")])
    func badHeaders(name: String, value: String) {
        let error = refusal { _ = try InputValidation.header(name: name, value: value) }
        #expect(error?.code == .invalidHeader)
        #expect(error?.message.contains("secret") == false)
        #expect(error?.message.unicodeScalars.contains { $0.properties.generalCategory == .control } == false)
    }

    @Test("a SHA-256 is 64 hex digits of either case, given back in lowercase; anything else is refused")
    func sha256() throws {
        #expect(try InputValidation.sha256(String(repeating: "AbC0", count: 16)) == String(repeating: "abc0", count: 16))
        for bad in ["", "xyz", String(repeating: "a", count: 63), String(repeating: "a", count: 65),
                    String(repeating: "g", count: 64), String(repeating: "\u{0661}", count: 64), String(repeating: "a", count: 63) + "\n"] {
            let error = refusal { _ = try InputValidation.sha256(bad) }
            #expect(error?.code == .invalidChecksum)
            #expect(error?.message.hasSuffix("is not 64 hexadecimal digits") == true)
        }
        try InputValidation.checkChecksumType("SHA-256")
        try InputValidation.checkChecksumType("sha256")
        #expect(refusal { try InputValidation.checkChecksumType("md5") }?.code == .invalidChecksum)
    }

    @Test("Downloader.add applies the same rules, with the same messages, and adds nothing")
    func downloaderApplies() async throws {
        let h = Harness()
        h.serve("a", size: 100, chunkSize: 100)
        let cases: [(id: String, url: URL, options: DownloadOptions?, message: String)] = [
            ("", h.url("a"), nil, "an id must be 1 to 256"),
            ("a\nb", h.url("a"), nil, "an id must be 1 to 256"),
            (String(repeating: "x", count: 257), h.url("a"), nil, "an id must be 1 to 256"),
            ("a", URL(string: "mock://files:99999/a")!, nil, "a port is 1 to 65535"),
            ("a", h.url("a"), DownloadOptions(transfer: TransferOptions(headers: [HeaderField(name: "X", value: "1\r\nY: 2")])),
             "the value of the header field 'X' contains a line break"),
            ("a", h.url("a"), DownloadOptions(sha256: "xyz"), "the SHA-256 'xyz' is not 64 hexadecimal digits"),
            ("a", h.url("a"), DownloadOptions(mirrors: [URL(string: "mock://files:0/a")!]), "a port is 1 to 65535"),
        ]
        for item in cases {
            do {
                try await h.downloader.add(id: item.id, url: item.url, options: item.options)
                Issue.record("accepted: \(item.message)")
            } catch let error as DownloadError {
                let expected = refusal { try InputValidation.checkDownload(id: item.id, url: item.url, options: item.options) }
                #expect(error.code == expected?.code && error.message == expected?.message)
                #expect(error.message.contains(item.message), "\(error.message)")
            }
        }
        #expect(await h.downloader.downloads().isEmpty)
        try await h.downloader.add(id: "a", url: h.url("a"))
        // An opaque URL (no `//`) of a registered scheme is a custom transport's business.
        try await h.downloader.add(id: "opaque", url: URL(string: "mock:opaque-name")!)
        await h.cleanUp()
    }

    @Test("an opaque URL needs no host where the caller allows it (the Downloader, for custom transports); front ends refuse it")
    func opaqueURLs() throws {
        for text in ["magnet:?xt=urn:btih:0123456789abcdef", "urn:isbn:0451450523", "data:text/plain,see%20http://h:99999/x"] {
            let url = try #require(URL(string: text))
            try InputValidation.checkURL(url, allowsOpaque: true)
            let refused = refusal { try InputValidation.checkURL(url) }
            #expect(refused?.code == .invalidURL && refused?.message.contains("has no host") == true, "\(text)")
        }
        // The network schemes name a host however they are written; an authority needs a host.
        for text in ["http:path/f", "sftp:f", "ftp:/f", "custom:///f"] {
            let url = try #require(URL(string: text))
            let refused = refusal { try InputValidation.checkURL(url, allowsOpaque: true) }
            #expect(refused?.code == .invalidURL, "\(text)")
        }
    }
}
