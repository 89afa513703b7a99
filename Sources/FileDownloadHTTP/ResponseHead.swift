import FileDownload
import Foundation

/// The status line and header fields of one HTTP response, as libcurl's header callback saw them.
/// Names are kept lowercased; values trimmed.
struct ResponseHead: Sendable {
    var statusCode: Int = 0
    var fields: [(name: String, value: String)] = []
    /// Whether the empty line that ends the header block was seen.
    var isComplete = false

    /// Feeds one raw header line (status line, field, or the empty line). A status line starts a
    /// new response, so the fields of redirects and interim responses are dropped.
    mutating func consume(line raw: String) {
        var raw = raw
        raw.withUTF8 { consume(line: UnsafeRawBufferPointer($0)) }
    }

    /// The same, straight from libcurl's header callback: works on the bytes (ASCII whitespace,
    /// `:` and the status digits), so a header costs two small strings, not a Foundation round trip
    /// per line on the I/O thread that every transfer shares.
    mutating func consume(line bytes: UnsafeRawBufferPointer) {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, Self.isSpace(bytes[start]) { start += 1 }
        while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if line.starts(with: Self.httpPrefix) {
            self = ResponseHead()
            // "HTTP/1.1 206 Partial Content": the code is the digits after the first space.
            guard var i = line.firstIndex(of: UInt8(ascii: " ")) else { return }
            while i < line.endIndex, line[i] == UInt8(ascii: " ") { i += 1 }
            var code = 0, digits = 0
            while i < line.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[i]), digits < 3 {
                code = code * 10 + Int(line[i] - UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
            statusCode = digits == 3 && (i == line.endIndex || line[i] == UInt8(ascii: " ")) ? code : 0
        } else if line.isEmpty {
            isComplete = true
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            var nameEnd = colon
            while nameEnd > line.startIndex, Self.isSpace(line[nameEnd - 1]) { nameEnd -= 1 }
            var valueStart = colon + 1
            while valueStart < line.endIndex, Self.isSpace(line[valueStart]) { valueStart += 1 }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[line.startIndex..<nameEnd]), as: UTF8.self)
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart..<line.endIndex]), as: UTF8.self)
            fields.append((Self.lowercasedASCII(name), value))
        }
    }

    private static let httpPrefix: [UInt8] = Array("HTTP/".utf8)

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// Field names are ASCII tokens; anything else is kept as it is.
    private static func lowercasedASCII(_ name: String) -> String {
        guard name.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return name }
        return String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The last value of the field `name` (lowercase).
    func value(_ name: String) -> String? { fields.last { $0.name == name }?.value }

    /// Every value of the field `name` (lowercase), in order.
    func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// Whether this is a redirect that libcurl follows when it has a `Location`.
    var isFollowableRedirect: Bool {
        [301, 302, 303, 307, 308].contains(statusCode) && value("location") != nil
    }

    /// The `Content-Length`, when present and valid.
    var contentLength: Int64? { value("content-length").flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } }

    /// The content codings of the body other than identity, from `Content-Encoding`, lowercased,
    /// in order and joined by `", "`; `nil` when the body is the resource's own bytes.
    ///
    /// libcurl decodes nothing (`CURLOPT_ACCEPT_ENCODING` is never set): such a body is kept as
    /// sent, as curl and wget keep it, and the coding becomes part of the validator
    /// (``Validator/contentEncoding``), so that bytes of one coding are never continued with
    /// bytes of another.
    var contentCoding: String? {
        Self.codings(in: values("content-encoding"), besides: ["identity"])
    }

    /// The first transfer coding other than `chunked` and `identity` (which libcurl undoes), from
    /// `Transfer-Encoding`; `nil` when there is none. A transfer coding belongs to one message,
    /// not to the resource: such a body is refused.
    var transferCoding: String? {
        Self.codings(in: values("transfer-encoding"), besides: ["identity", "chunked"])?
            .split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func codings(in fields: [String], besides plain: Set<String>) -> String? {
        let codings = fields.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && !plain.contains($0) }
        return codings.isEmpty ? nil : codings.joined(separator: ", ")
    }

    /// The parsed `Content-Range`.
    var contentRange: ContentRange? { value("content-range").flatMap(ContentRange.init(parsing:)) }

    /// The validator to remember: a strong ETag, else Last-Modified, else a weak ETag; with the
    /// body's ``contentCoding``.
    var validator: Validator? {
        let tag = value("etag").map(Validator.entityTag)
        if let tag, tag.isStrong { return tag.encoded(contentCoding) }
        if let date = value("last-modified") { return Validator.lastModified(date).encoded(contentCoding) }
        return tag?.encoded(contentCoding)
    }

    /// The response's validator of the same kind as `validator`, if it sent one; with the body's
    /// ``contentCoding``.
    func validator(ofKind kind: Validator.Kind) -> Validator? {
        switch kind {
        case .entityTag: value("etag").map { Validator.entityTag($0).encoded(contentCoding) }
        case .lastModified: value("last-modified").map { Validator.lastModified($0).encoded(contentCoding) }
        default: nil
        }
    }

    /// `Retry-After` as a duration (delta seconds or an HTTP date).
    var retryAfter: Duration? {
        guard let text = value("retry-after") else { return nil }
        if let seconds = Int(text) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }

    /// The file name from `Content-Disposition` (`filename*=UTF-8''…` preferred), unsanitised.
    var suggestedFilename: String? {
        guard let text = value("content-disposition") else { return nil }
        var plain: String?
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                if let quote = pair[1].range(of: "''") {
                    if let decoded = pair[1][quote.upperBound...].removingPercentEncoding { return decoded }
                }
            case "filename":
                plain = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            default: break
            }
        }
        return plain
    }

    /// The first challenge of `WWW-Authenticate` (or `Proxy-Authenticate`) whose scheme is
    /// supported, else the first one: its scheme and realm.
    func challenge(proxy: Bool) -> (scheme: String, realm: String?)? {
        let headers = values(proxy ? "proxy-authenticate" : "www-authenticate")
        let parsed = headers.map { header -> (scheme: String, realm: String?) in
            let scheme = String(header.prefix { !$0.isWhitespace })
            var realm: String?
            if let r = header.range(of: "realm=", options: .caseInsensitive) {
                let rest = header[r.upperBound...]
                if rest.hasPrefix("\"") {
                    realm = String(rest.dropFirst().prefix { $0 != "\"" })
                } else {
                    realm = String(rest.prefix { $0 != "," && !$0.isWhitespace })
                }
            }
            return (scheme, realm)
        }
        let supported = ["basic", "digest", "bearer"]
        return parsed.first { supported.contains($0.scheme.lowercased()) } ?? parsed.first
    }
}
