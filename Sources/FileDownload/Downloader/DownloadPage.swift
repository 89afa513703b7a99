/// One page of ``Downloader/downloads(in:after:limit:)``: downloads in queue order, and where the
/// next page starts.
public struct DownloadPage: Sendable, Hashable {
    /// The downloads of this page, in queue order (at most the `limit` asked for).
    public var downloads: [DownloadInfo]
    /// The queue position to pass as `after` for the next page; `nil` when this page is the last.
    /// Positions only grow, so a download added meanwhile comes on a later page, and one removed
    /// meanwhile does not shift the pages.
    public var next: Int64?

    public init(downloads: [DownloadInfo], next: Int64?) {
        self.downloads = downloads
        self.next = next
    }
}
