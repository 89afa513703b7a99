extension DownloadOptions {
    /// A copy whose transfer options hold no secret (``TransferOptions/withoutSecrets``): what
    /// resume data and the store keep.
    public var withoutSecrets: DownloadOptions {
        var copy = self
        copy.transfer = transfer.withoutSecrets
        return copy
    }
}
