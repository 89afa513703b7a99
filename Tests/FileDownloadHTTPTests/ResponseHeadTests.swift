@testable import FileDownloadHTTP
import FileDownload
import Testing

/// Header lines as libcurl's header callback hands them over, parsed on the bytes.
@Suite("ResponseHead parsing")
struct ResponseHeadTests {
    private func parse(_ lines: [String]) -> ResponseHead {
        var head = ResponseHead()
        for line in lines { head.consume(line: line) }
        return head
    }

    @Test("status lines of HTTP/1.0, 1.1 and 2, with and without a reason phrase")
    func statusLines() {
        #expect(parse(["HTTP/1.1 206 Partial Content\r\n"]).statusCode == 206)
        #expect(parse(["HTTP/1.0 404 Not Found\r\n"]).statusCode == 404)
        #expect(parse(["HTTP/2 200 \r\n"]).statusCode == 200)
        #expect(parse(["HTTP/1.1 416\r\n"]).statusCode == 416)
        #expect(parse(["HTTP/1.1 20x Odd\r\n"]).statusCode == 0)
        #expect(parse(["HTTP/1.1 2000 Long\r\n"]).statusCode == 0)
        #expect(parse(["HTTP/1.1\r\n"]).statusCode == 0)
    }

    @Test("names are lowercased, values trimmed and kept as sent, the empty line completes the head")
    func fields() {
        let head = parse([
            "HTTP/1.1 200 OK\r\n", "Content-Length:   1234 \r\n", "ETag:\t\"Ab-12\"\r\n",
            "X-Empty:\r\n", "Location : /next?A=B:C\r\n", "no colon here\r\n", "\r\n",
        ])
        #expect(head.isComplete)
        #expect(head.contentLength == 1234)
        #expect(head.value("etag") == "\"Ab-12\"")
        #expect(head.value("x-empty") == "")
        #expect(head.value("location") == "/next?A=B:C")
        #expect(head.fields.count == 4)
    }

    @Test("a new status line drops the fields of the response before it (redirects, 100 Continue)")
    func redirectsReset() {
        let head = parse([
            "HTTP/1.1 302 Found\r\n", "Location: /b\r\n", "ETag: \"old\"\r\n", "\r\n",
            "HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n", "\r\n",
        ])
        #expect(head.statusCode == 200)
        #expect(head.value("location") == nil)
        #expect(head.value("etag") == nil)
        #expect(head.contentLength == 5)
    }

    @Test("non-ASCII bytes in a value survive")
    func utf8Values() {
        let head = parse(["HTTP/1.1 200 OK\r\n", "Content-Disposition: attachment; filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n",
                          "X-Note: café\r\n", "\r\n"])
        #expect(head.value("x-note") == "café")
        #expect(head.suggestedFilename == "été.txt")
    }
}
