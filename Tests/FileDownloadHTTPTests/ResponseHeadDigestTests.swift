@testable import FileDownloadHTTP
import Foundation
import Testing

/// The SHA-256 a response announces for the whole file (`Repr-Digest`, `Content-Digest`, `Digest`).
@Suite("ResponseHead: the server's digest")
struct ResponseHeadDigestTests {
    private func parse(_ lines: [String]) -> ResponseHead {
        var head = ResponseHead()
        for line in lines + ["\r\n"] { head.consume(line: line) }
        return head
    }

    /// 32 zero bytes in base64, and their hex.
    static let zeros = Data(count: 32).base64EncodedString(), zerosHex = String(repeating: "00", count: 32)

    @Test("Repr-Digest counts in any answer, sha-256 among other algorithms; Content-Digest and Digest in a plain 200 only")
    func announced() {
        #expect(parse(["HTTP/1.1 206 Partial\r\n", "Repr-Digest: sha-512=:AAAA:, sha-256=:\(Self.zeros):\r\n"])
            .announcedSHA256 == Self.zerosHex)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Content-Digest: sha-256=:\(Self.zeros):\r\n"]).announcedSHA256 == Self.zerosHex)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Digest: MD5=abc, SHA-256=\(Self.zeros)\r\n"]).announcedSHA256 == Self.zerosHex)
        // The digest of a part, or of an encoded body, is not the file's.
        #expect(parse(["HTTP/1.1 206 Partial\r\n", "Content-Digest: sha-256=:\(Self.zeros):\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 206 Partial\r\n", "Digest: SHA-256=\(Self.zeros)\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Content-Encoding: gzip\r\n", "Content-Digest: sha-256=:\(Self.zeros):\r\n"])
            .announcedSHA256 == nil)
    }

    @Test("other algorithms and malformed values announce nothing")
    func ignored() {
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Repr-Digest: sha-512=:\(Self.zeros):\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Repr-Digest: sha-256=:AAAA:\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Repr-Digest: sha-256=\(Self.zeros)\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 200 OK\r\n", "Digest: SHA-256=not base64!\r\n"]).announcedSHA256 == nil)
        #expect(parse(["HTTP/1.1 200 OK\r\n"]).announcedSHA256 == nil)
    }
}
