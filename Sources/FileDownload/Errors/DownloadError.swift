/// The one error type of swift-file-download.
///
/// Every failure the library reports, whether it comes from the ``Downloader`` itself, from a
/// ``Transport``, from the file system or from a ``DownloadStore``, is a `DownloadError`.
/// Transports translate their library's errors (libcurl, libssh2, ...) into it; those types never
/// reach the public API. The detailed original error travels in ``underlying``.
///
/// A `DownloadError` carries:
/// - a ``code`` that says what kind of failure it is (an extensible set of static values, so new
///   codes can be added without breaking callers that switch over the ones they know);
/// - a ``messages`` stack, outermost context first, innermost cause last;
/// - ``isRetryable``: whether trying again (after a delay, resuming at the offset) may help.
///   The downloader retries only retryable errors.
public struct DownloadError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// The message stack: outermost context first, innermost cause last. Never empty.
    public var messages: [String]
    /// Whether another attempt may succeed. The downloader retries only retryable errors.
    public var isRetryable: Bool
    /// The protocol status that caused the error (an HTTP status code), when there is one.
    public var statusCode: Int?
    /// How long the server asked us to wait before trying again (HTTP `Retry-After`), if it said.
    public var retryAfter: Duration?
    /// The error this one was made from, for diagnostics. Never shown as the message.
    public var underlying: (any Error & Sendable)?
    /// For ``Code/connectionFailed``: whether the host refused, could not be reached, did not
    /// answer in time, or its name was not resolved, when the transport can tell (`nil` otherwise).
    /// ``FailurePolicy`` decides with it what the failure means (retry, wait for the network, or
    /// fail now).
    public var connectionFailure: ConnectionFailure?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - message: a sentence a person can act on ("host key for 127.0.0.1:2222 changed").
    ///   - isRetryable: whether another attempt may help; defaults to the code's usual answer.
    ///   - statusCode: the protocol status, if any.
    ///   - retryAfter: the delay the server asked for, if any.
    ///   - underlying: the original error, if any.
    public init(
        _ code: Code,
        _ message: String,
        isRetryable: Bool? = nil,
        statusCode: Int? = nil,
        retryAfter: Duration? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.messages = [message]
        self.isRetryable = isRetryable ?? code.isRetryableByDefault
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    /// The outermost message.
    public var message: String { messages.first ?? code.rawValue }

    /// Returns a copy with `context` pushed on top of the message stack.
    public func adding(context: String) -> DownloadError {
        var copy = self
        copy.messages.insert(context, at: 0)
        return copy
    }

    public var description: String {
        "\(code.rawValue): " + messages.joined(separator: ": ")
    }

    /// Wraps any error into a `DownloadError`: a `DownloadError` stays as it is, a
    /// `CancellationError` becomes ``Code/cancelled``, anything else becomes ``Code/transport``
    /// (not retryable) with the error's description as message.
    public static func wrapping(_ error: any Error) -> DownloadError {
        if let error = error as? DownloadError { return error }
        if error is CancellationError { return DownloadError(.cancelled, "the transfer was cancelled") }
        return DownloadError(.transport, String(describing: error), underlying: SendableErrorBox(error))
    }
}

/// Keeps the description of a non-`Sendable` error so it can travel in ``DownloadError/underlying``.
public struct SendableErrorBox: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ error: any Error) { self.description = String(describing: error) }
}
