extension DownloadError {
    /// The kind of a ``DownloadError``: an open set of values.
    ///
    /// Switch over the codes you handle and keep a `default:`; new codes may be added.
    public struct Code: Hashable, Sendable, RawRepresentable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // MARK: caller mistakes (never retryable)

        /// The URL cannot be parsed or lacks a part the transport needs (host, path).
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// No transport is registered for the URL's scheme.
        public static let unsupportedScheme = Code(rawValue: "unsupportedScheme")
        /// A download with this identifier already exists.
        public static let duplicateIdentifier = Code(rawValue: "duplicateIdentifier")
        /// No download has this identifier.
        public static let unknownIdentifier = Code(rawValue: "unknownIdentifier")
        /// The operation is not allowed in the download's current state (pause a completed one).
        public static let invalidState = Code(rawValue: "invalidState")
        /// Resume data that is malformed, truncated, of an unknown version, or for another download.
        public static let invalidResumeData = Code(rawValue: "invalidResumeData")
        /// A file name or destination that would leave its directory, or is otherwise unusable.
        public static let invalidDestination = Code(rawValue: "invalidDestination")
        /// An id that is empty, longer than 256 Unicode scalars, or has a control character or a
        /// line break (``InputValidation/checkIdentifier(_:)``).
        public static let invalidIdentifier = Code(rawValue: "invalidIdentifier")
        /// A request header field whose name is not an RFC 9110 token, or whose value has a
        /// control character other than tab (``InputValidation/checkHeader(_:)``).
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// A SHA-256 that is not 64 hexadecimal digits, or a checksum type other than SHA-256
        /// (``InputValidation/sha256(_:)``).
        public static let invalidChecksum = Code(rawValue: "invalidChecksum")

        // MARK: the network and the server

        /// Could not connect (refused, unreachable, name not resolved). Retryable.
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// The connection broke during the transfer. Retryable.
        public static let connectionLost = Code(rawValue: "connectionLost")
        /// No byte arrived for the request (idle) timeout. Retryable.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The download was active for longer than its resource timeout. Not retryable.
        public static let resourceTimedOut = Code(rawValue: "resourceTimedOut")
        /// The download waited ``DownloaderConfiguration/maxNetworkWait`` for the network (no
        /// route to the host) and gave up, under "no network for N s: giving up" and the last
        /// connection's error. Its bytes are kept: a resume starts a new wait. Not retryable.
        public static let networkUnavailable = Code(rawValue: "networkUnavailable")
        /// The server answered with a status that is not a success (see ``DownloadError/statusCode``).
        /// Retryable for 408, 429 and 5xx.
        public static let badStatus = Code(rawValue: "badStatus")
        /// The remote resource does not exist (HTTP 404/410, SFTP no such file).
        public static let notFound = Code(rawValue: "notFound")
        /// The server refused access (HTTP 403, SFTP permission denied).
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// Authentication was required and did not succeed.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// TLS server verification failed (unknown CA, wrong host name, expired certificate).
        public static let tlsFailure = Code(rawValue: "tlsFailure")
        /// The SSH server's host key is not known and was not accepted.
        public static let hostKeyUnknown = Code(rawValue: "hostKeyUnknown")
        /// The SSH server's host key differs from the known one. Never retryable.
        public static let hostKeyMismatch = Code(rawValue: "hostKeyMismatch")
        /// A redirect was refused (to a non-http(s) scheme, or from https to http).
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// Too many redirects.
        public static let tooManyRedirects = Code(rawValue: "tooManyRedirects")
        /// The server broke the protocol (a body shorter than announced, a Content-Range that lies).
        /// Retryable: the next attempt resumes from the bytes that are on disk.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// A ranged request (``TransferRequest/end``) starts at or past the end of the remote
        /// resource (HTTP 416): there is no byte to send. Not retryable; the error's message says
        /// the resource's length when the server told it.
        public static let rangeNotSatisfiable = Code(rawValue: "rangeNotSatisfiable")
        /// Any other transport failure.
        public static let transport = Code(rawValue: "transport")

        // MARK: local

        /// Writing to or reading the local file failed (permissions, I/O error).
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// The disk is full (ENOSPC). The bytes on disk are kept; resumable.
        public static let diskFull = Code(rawValue: "diskFull")
        /// The file size limit was reached (EFBIG). The bytes on disk are kept; resumable.
        public static let fileTooLarge = Code(rawValue: "fileTooLarge")
        /// The file is larger than the download allows (``DownloadOptions/maxFileSize``): the
        /// server announced a larger size, or sent more bytes than the limit without announcing
        /// one. Not retryable; the bytes are discarded. Not EFBIG, which is ``fileTooLarge``.
        public static let maxFileSizeExceeded = Code(rawValue: "maxFileSizeExceeded")
        /// The downloaded file failed validation (size, SHA-256, status, or the delegate said no).
        public static let validationFailed = Code(rawValue: "validationFailed")
        /// The download store failed or holds data it cannot read.
        public static let store = Code(rawValue: "store")
        /// The transfer was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")

        /// Whether errors of this code are retryable unless the thrower says otherwise.
        public var isRetryableByDefault: Bool {
            switch self {
            case .connectionFailed, .connectionLost, .timedOut, .protocolViolation: true
            default: false
            }
        }
    }

    /// Maps an HTTP-like status code to an error; `nil` for 2xx.
    ///
    /// 404/410 → ``Code/notFound``, 401/407 → ``Code/authenticationFailed``, 403 →
    /// ``Code/permissionDenied``, anything else → ``Code/badStatus``. 408, 429 and 5xx are retryable.
    public static func forStatus(_ status: Int, retryAfter: Duration? = nil) -> DownloadError? {
        if (200..<300).contains(status) { return nil }
        let retryable = status == 408 || status == 429 || (500..<600).contains(status)
        let code: Code = switch status {
        case 404, 410: .notFound
        case 401, 407: .authenticationFailed
        case 403: .permissionDenied
        default: .badStatus
        }
        return DownloadError(code, "the server answered with status \(status)", isRetryable: retryable,
                             statusCode: status, retryAfter: retryAfter)
    }
}
