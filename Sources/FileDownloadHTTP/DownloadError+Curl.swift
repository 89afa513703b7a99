internal import CCurl
import FileDownload
import Foundation

extension DownloadError {
    /// Translates a libcurl result into the core's error, with the retryable flag the transport
    /// documents: connection trouble and timeouts are retryable; TLS, redirect and URL problems
    /// are not. A failed connection says what it tells of the way to the server
    /// (``DownloadError/connectionFailure``), from the code and `osErrno` (`CURLINFO_OS_ERRNO`):
    /// refused (`ECONNREFUSED`), unreachable (`ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`,
    /// `EHOSTDOWN`), timed out (`ETIMEDOUT`, or curl's timeout before the connection was made,
    /// `connected` false), the name not resolved; the downloader's `FailurePolicy` decides what
    /// each means. A timeout after the connection was made is `timedOut`: the server went silent.
    static func curl(_ code: CURLcode, detail: String, url: String, osErrno: Int32 = 0,
                     connected: Bool = true) -> DownloadError {
        let text = String(cString: curl_easy_strerror(code))
        // libcurl's detail can quote a proxy URL whole ("Unsupported proxy scheme for '...'").
        let detail = HTTPTransport.ProxySettings.redactingUserInformation(in: detail)
        let message = detail.isEmpty ? text : "\(text) (\(detail))"
        let failure = CurlFailure(code: Int(code.rawValue), message: message)
        func make(_ code: Code, _ what: String, retryable: Bool? = nil) -> DownloadError {
            DownloadError(code, "\(what) \(url): \(message)", isRetryable: retryable, underlying: failure)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            var error = make(.connectionFailed, "cannot connect to")
            error.connectionFailure = .nameNotResolved
            return error
        case CURLE_COULDNT_CONNECT:
            var error = make(.connectionFailed, "cannot connect to")
            error.connectionFailure = ConnectionFailure(connectErrno: osErrno)
            return error
        case CURLE_OPERATION_TIMEDOUT where !connected:
            var error = make(.connectionFailed, "no connection within the connect timeout to")
            error.connectionFailure = .timedOut
            return error
        case CURLE_OPERATION_TIMEDOUT:
            return make(.timedOut, "the server went silent (timed out) on")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return make(.connectionLost, "the connection broke while downloading")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE:
            return make(.tlsFailure, "TLS failed for", retryable: false)
        case CURLE_TOO_MANY_REDIRECTS:
            return make(.tooManyRedirects, "too many redirects for", retryable: false)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return make(.redirectRefused, "a redirect to a protocol other than http or https was refused for",
                        retryable: false)
        case CURLE_URL_MALFORMAT:
            return make(.invalidURL, "the URL is malformed:", retryable: false)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_RANGE_ERROR:
            return make(.protocolViolation, "the server broke the protocol for", retryable: true)
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return make(.authenticationFailed, "authentication failed for", retryable: false)
        case CURLE_REMOTE_FILE_NOT_FOUND:
            return make(.notFound, "no such file:", retryable: false)
        case CURLE_REMOTE_ACCESS_DENIED:
            return make(.permissionDenied, "access denied to", retryable: false)
        case CURLE_FTP_WEIRD_PASS_REPLY, CURLE_FTP_WEIRD_PASV_REPLY,
             CURLE_FTP_WEIRD_227_FORMAT, CURLE_FTP_CANT_GET_HOST, CURLE_FTP_COULDNT_SET_TYPE,
             CURLE_FTP_PORT_FAILED, CURLE_FTP_ACCEPT_FAILED, CURLE_FTP_ACCEPT_TIMEOUT:
            return make(.connectionLost, "the FTP exchange failed for", retryable: true)
        case CURLE_ABORTED_BY_CALLBACK:
            return make(.cancelled, "the transfer was cancelled:", retryable: false)
        default:
            return make(.transport, "the transfer failed for", retryable: false)
        }
    }
}
