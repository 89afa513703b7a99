internal import CCurl

extension HTTPTransport {
    /// The libcurl this process runs with and its TLS and compression libraries, as libcurl
    /// names them (`libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 ...`): for version and bug reports.
    public static var libcurlVersion: String {
        guard let text = curl_version() else { return "libcurl (unknown version)" }
        return String(cString: text)
    }
}
