extension DownloadOptions {
    /// A copy whose transfer options hold no secret (``TransferOptions/withoutSecrets``) and whose
    /// mirrors carry no credentials: what resume data and the store keep.
    public var withoutSecrets: DownloadOptions {
        var copy = self
        copy.transfer = transfer.withoutSecrets
        copy.mirrors = mirrors.map(\.removingCredentials)
        return copy
    }
}
