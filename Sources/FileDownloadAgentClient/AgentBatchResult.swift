public import FileDownload

/// The agent's answer about one item of a batch add (`POST /v1/downloads` with an array): the
/// status a single add would have had, and either the download (201) or the error.
public struct AgentBatchResult: Codable, Sendable, Hashable {
    /// The item's `id` as sent (empty when the item had none).
    public var id: String
    /// 201 when added; else the 4xx or 5xx a single request with this item would have got.
    public var status: Int
    /// The download as the agent describes it (its destination chosen), when added.
    public var download: DownloadInfo?
    /// The error code (`duplicate-id`, `bad-url`, ...), when refused.
    public var error: AgentErrorCode?
    /// What to fix, in words, when refused.
    public var message: String?

    public init(id: String, status: Int, download: DownloadInfo? = nil, error: AgentErrorCode? = nil, message: String? = nil) {
        self.id = id
        self.status = status
        self.download = download
        self.error = error
        self.message = message
    }
}
