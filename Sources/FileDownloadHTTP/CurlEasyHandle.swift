internal import CCurl

/// A class holding one libcurl easy handle (``CurlTransfer`` for downloads, ``CurlPost`` for
/// webhook POSTs): the option setters both use, written once.
protocol CurlEasyHandle: AnyObject {
    /// The easy handle the options go to.
    var easy: UnsafeMutableRawPointer { get }
    /// The request header fields set with ``setHeaders(_:)``; freed with the handle.
    var headerList: UnsafeMutablePointer<curl_slist>? { get set }
    /// The error a refused string option throws: libcurl's `code` for `option`.
    func refused(_ option: CURLoption, _ code: CURLcode) -> any Error
}

extension CurlEasyHandle {
    /// Sets a string option; libcurl copies the string. Throws ``refused(_:_:)``'s error when
    /// libcurl refuses it.
    func set(_ option: CURLoption, _ value: String) throws {
        let code = ccurl_easy_setopt_string(easy, option, value)
        guard code == CURLE_OK else { throw refused(option, code) }
    }

    /// Sets a numeric option.
    func set(_ option: CURLoption, _ value: Int) {
        _ = ccurl_easy_setopt_long(easy, option, value)
    }

    /// Sets a `curl_off_t` option.
    func set(_ option: CURLoption, offset value: Int64) {
        _ = ccurl_easy_setopt_off(easy, option, curl_off_t(value))
    }

    /// Sets the request header fields; the list lives as long as the handle.
    func setHeaders(_ lines: [String]) {
        for line in lines { headerList = curl_slist_append(headerList, line) }
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
    }
}
