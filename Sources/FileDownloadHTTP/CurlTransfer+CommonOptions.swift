internal import CCurl
import FileDownload

extension CurlTransfer {
    /// Sets the options every transfer of this module's transports sets the same way: no
    /// signals, the receive buffer (clamped to what libcurl accepts), the connect timeout of
    /// `options`, its request timeout as libcurl's low-speed bound (fewer than 1 byte a second for
    /// that many whole seconds, at least 1), TLS verification of the chain and the host name (or
    /// none), the CA bundle and directory, and the download's rate limit.
    func setCommonOptions(
        _ options: TransferOptions, receiveBufferSize: Int, verifiesTLS: Bool, caBundlePath: String?, caDirectoryPath: String?
    ) throws {
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_BUFFERSIZE, min(max(receiveBufferSize, Int(ccurl_max_write_size())), Int(ccurl_max_read_size())))
        set(CURLOPT_CONNECTTIMEOUT_MS, max(1, options.connectTimeout.wholeMilliseconds))
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, options.requestTimeout.curlSeconds)
        set(CURLOPT_SSL_VERIFYPEER, verifiesTLS ? 1 : 0)
        set(CURLOPT_SSL_VERIFYHOST, verifiesTLS ? 2 : 0)
        if let caBundlePath { try set(CURLOPT_CAINFO, caBundlePath) }
        if let caDirectoryPath { try set(CURLOPT_CAPATH, caDirectoryPath) }
        if let rate = options.maxBytesPerSecond, rate > 0 { set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: rate) }
    }
}
