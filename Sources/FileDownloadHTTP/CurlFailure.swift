/// A libcurl result code and its message, kept as `DownloadError.underlying` for diagnostics.
struct CurlFailure: Error, Sendable, CustomStringConvertible {
    /// The `CURLcode` value.
    var code: Int
    /// libcurl's text for the code, with the detail of its error buffer when there is one.
    var message: String

    var description: String { "libcurl error \(code): \(message)" }
}
