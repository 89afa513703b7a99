public import FileDownload

/// One event from the agent's stream.
public struct AgentEvent: Sendable {
    /// The journal's sequence number; `nil` for live-only events (progress, total progress,
    /// activity count), which are not journalled and never replayed.
    public var sequence: Int64?
    /// The event, as `Downloader.events()` gives it in the agent's process
    /// (resume data excepted: it stays in the agent).
    public var event: DownloadEvent

    public init(sequence: Int64?, event: DownloadEvent) {
        self.sequence = sequence
        self.event = event
    }
}
