@testable import FileDownloadHTTP
import Foundation
import Testing

/// What `HTTPTransport.Configuration.exchangeLog` shows of a header line: names and plain values,
/// never a secret's value or a query value.
@Suite struct ExchangeLogRedactionTests {
    let logger = ExchangeLogger(log: HTTPTransport.ExchangeLog { _ in }, id: "a", secretNames: ["x-api-key"])

    @Test(arguments: [
        ("Authorization: Bearer abc", "Authorization: [redacted]"),
        ("proxy-authorization: Basic abc", "proxy-authorization: [redacted]"),
        ("Cookie: a=b", "Cookie: [redacted]"),
        ("Set-Cookie: s=1; Path=/", "Set-Cookie: [redacted]"),
        ("X-Amz-Security-Token: tok", "X-Amz-Security-Token: [redacted]"),
        ("X-Api-Key: k", "X-Api-Key: [redacted]"),
        ("Content-Length: 10", "Content-Length: 10"),
        ("GET /f.bin?X-Amz-Signature=s&X-Amz-Credential=c&flag HTTP/1.1",
         "GET /f.bin?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&flag=[redacted] HTTP/1.1"),
        ("GET /t?at=12:30 HTTP/1.1", "GET /t?at=[redacted] HTTP/1.1"),
        ("HTTP/1.1 404 Not Found", "HTTP/1.1 404 Not Found"),
        ("Location: https://b.s3.example/k?X-Amz-Signature=s&X-Amz-Credential=c",
         "Location: https://b.s3.example/k?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]"),
        ("location: /next.bin?token=t", "location: /next.bin?token=[redacted]"),
        ("Content-Location: http://h/f?sig=1", "Content-Location: http://h/f?sig=[redacted]"),
        ("Location: https://h/plain.bin", "Location: https://h/plain.bin"),
        ("Location: /plain.bin", "Location: /plain.bin"),
        ("Content-Type: text/plain; q=?", "Content-Type: text/plain; q=?"),
    ])
    func aLineIsShownWithoutItsSecrets(line: String, shown: String) {
        #expect(logger.redacted(line) == shown)
    }
}
