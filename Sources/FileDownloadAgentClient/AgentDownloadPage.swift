public import FileDownload

/// One page of `GET /v1/downloads`: downloads in queue order, and the `after` of the next page.
public struct AgentDownloadPage: Codable, Sendable, Hashable {
    public var downloads: [DownloadInfo]
    /// Pass it as `after` to get the next page; `nil` on the last page. A queue position: it only
    /// grows, so pages neither repeat nor skip a download that stays meanwhile.
    public var next: Int64?

    public init(downloads: [DownloadInfo], next: Int64?) {
        self.downloads = downloads
        self.next = next
    }
}
