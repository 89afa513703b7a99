extension DownloadRecord {
    /// The record as it may be persisted: no password in the URL or the proxy URL, no sensitive
    /// header field. `init` strips these already; the fields are mutable, so a store strips again
    /// before it writes.
    public var withoutSecrets: DownloadRecord {
        var copy = self
        copy.url = url.removingCredentials
        copy.options = options.withoutSecrets
        return copy
    }
}
