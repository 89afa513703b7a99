@testable import FileDownloadHTTP

extension ResponseHead {
    /// The head of a response with `status` and header `fields`, parsed line by line as libcurl
    /// hands them over.
    static func parsing(_ status: Int, _ fields: [(String, String)]) -> ResponseHead {
        var head = ResponseHead()
        head.consume(line: "HTTP/1.1 \(status) X\r\n")
        for (name, value) in fields { head.consume(line: "\(name): \(value)\r\n") }
        head.consume(line: "\r\n")
        return head
    }
}
