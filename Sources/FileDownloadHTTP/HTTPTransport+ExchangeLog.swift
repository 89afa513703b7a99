internal import CCurl
import FileDownload
import Foundation

extension HTTPTransport {
    /// Where ``Configuration/exchangeLog`` sends the lines of each request and answer (status
    /// line and header fields, secrets redacted). Two logs are equal only when they are the same
    /// value (a copy of one is equal to it).
    public struct ExchangeLog: Sendable, Hashable {
        private let identity = UUID()
        let write: @Sendable (String) -> Void

        /// A log that hands each line, without its line break, to `write`.
        public init(_ write: @escaping @Sendable (String) -> Void) {
            self.write = write
        }

        public static func == (lhs: ExchangeLog, rhs: ExchangeLog) -> Bool { lhs.identity == rhs.identity }
        public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
    }
}

/// What libcurl's debug callback of one ``CurlTransfer`` writes through: the log, the download's
/// id, and the names of the fields whose values are never shown.
final class ExchangeLogger: Sendable {
    let log: HTTPTransport.ExchangeLog
    let id: String
    let secretNames: Set<String>

    /// The fields whose values are always secret, lowercased.
    static let alwaysSecret: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie",
                                            "x-amz-security-token"]

    init(log: HTTPTransport.ExchangeLog, id: String, secretNames: Set<String>) {
        self.log = log
        self.id = id
        self.secretNames = secretNames.union(Self.alwaysSecret)
    }

    /// Writes the header lines in `bytes` (a request's whole head, or one line of an answer's).
    func write(_ bytes: UnsafeRawBufferPointer, outgoing: Bool) {
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) where !line.isEmpty {
            log.write("\(id) \(outgoing ? ">" : "<") \(redacted(String(line)))")
        }
    }

    /// `line` with a secret field's value, the query values of a field value that holds a URL
    /// (`Location:` of a redirect to a presigned URL, `Content-Location:`, `Link:`), or the query
    /// values of a request line, redacted.
    func redacted(_ line: String) -> String {
        if let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            if !name.contains(" "), secretNames.contains(name) { return "\(line[..<colon]): [redacted]" }
            if !name.contains(" ") {
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                let holdsURL = value.contains("://") || (value.hasPrefix("/") || value.hasPrefix("<")) && value.contains("?")
                guard holdsURL, value.contains("?") else { return line }
                return "\(line[..<colon]): \(QueryRedaction.redactingValues(value))"
            }
        }
        // A request line: METHOD TARGET VERSION; the target's query values may be a signature.
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return line }
        return "\(parts[0]) \(QueryRedaction.redactingValues(parts[1])) \(parts[2])"
    }
}

extension CurlTransfer {
    /// Turns on libcurl's debug callback for this handle: the request head it sends and each
    /// header line it receives go to `log` (``ExchangeLogger``); nothing of a body.
    func logExchanges(to log: HTTPTransport.ExchangeLog, id: String, secretNames: Set<String>) {
        let logger = ExchangeLogger(log: log, id: id, secretNames: secretNames)
        exchangeLogger = logger
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, Unmanaged.passUnretained(logger).toOpaque())
        _ = ccurl_easy_setopt_debug_function(easy) { _, type, data, size, me in
            guard let me, let data, type == CURLINFO_HEADER_OUT || type == CURLINFO_HEADER_IN else { return 0 }
            let logger = Unmanaged<ExchangeLogger>.fromOpaque(me).takeUnretainedValue()
            logger.write(UnsafeRawBufferPointer(start: data, count: size), outgoing: type == CURLINFO_HEADER_OUT)
            return 0
        }
        set(CURLOPT_VERBOSE, 1)
    }
}
