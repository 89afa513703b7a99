/// The JSON form of an error: `{"code", "messages", "isRetryable", "statusCode"?, "retryAfterSeconds"?,
/// "connectionFailure"?}` (``ConnectionFailure``'s raw value; an unknown one decodes as absent).
///
/// ``DownloadError/underlying`` is not encoded (it is for diagnostics in the process that made the
/// error), so a decoded error has none. Messages never contain credentials (the library strips them
/// before an error is made), so the encoded form may be shown and stored.
extension DownloadError: Codable {
    private enum Key: String, CodingKey {
        case code, messages, isRetryable, statusCode, retryAfterSeconds, connectionFailure
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(code, forKey: .code)
        try c.encode(messages, forKey: .messages)
        try c.encode(isRetryable, forKey: .isRetryable)
        try c.encodeIfPresent(statusCode, forKey: .statusCode)
        try c.encodeIfPresent(retryAfter?.seconds, forKey: .retryAfterSeconds)
        try c.encodeIfPresent(connectionFailure, forKey: .connectionFailure)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let code = try c.decode(Code.self, forKey: .code)
        let messages = try c.decode([String].self, forKey: .messages)
        self.init(code, messages.first ?? code.rawValue,
                  isRetryable: try c.decodeIfPresent(Bool.self, forKey: .isRetryable),
                  statusCode: try c.decodeIfPresent(Int.self, forKey: .statusCode),
                  retryAfter: try c.decodeSecondsIfPresent(forKey: .retryAfterSeconds))
        if !messages.isEmpty { self.messages = messages }
        connectionFailure = (try? c.decodeIfPresent(String.self, forKey: .connectionFailure))
            .flatMap(ConnectionFailure.init(rawValue:))
    }
}
