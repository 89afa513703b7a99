extension DownloadOptions {
    /// These options with the configuration's defaults filled in: what a ``Downloader`` keeps for
    /// a download (``Downloader/add(id:url:destination:options:)`` and the starts from resume data
    /// call it; a front end never merges options itself).
    ///
    /// ``transfer`` is laid over ``DownloaderConfiguration/defaultTransferOptions`` with
    /// ``TransferOptions/merged(over:)``: each transfer field left unset takes the default, each
    /// field set wins, header fields and extra settings are combined by name. Every other field
    /// (``sha256``, ``expectedSize``, ``priority``, ``mirrors``, ...) is kept as it is: setting one
    /// changes nothing else. ``retryPolicy`` stays `nil` when unset: the downloader then applies
    /// ``DownloaderConfiguration/retryPolicy`` at each retry. Resolving twice gives the same
    /// options.
    public func resolved(with configuration: DownloaderConfiguration) -> DownloadOptions {
        var copy = self
        copy.transfer = transfer.merged(over: configuration.defaultTransferOptions)
        return copy
    }
}
