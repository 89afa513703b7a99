public import Foundation

/// What ``Downloader/downloads()`` reports of one download.
public struct DownloadInfo: Sendable, Hashable {
    public var id: String
    /// The remote URL without its password.
    public var url: URL
    public var destination: URL
    public var state: DownloadState
    public var progress: DownloadProgress
    /// The last error, for interrupted and failed downloads.
    public var lastError: String?
    /// The code of the last error.
    public var lastErrorCode: DownloadError.Code?
    public var attempts: Int
    /// For a download that completed in this downloader, what its file was checked against
    /// before it was moved to its destination (set before the ``DownloadEvent/completed(id:file:)``
    /// event is sent); `nil` until then, and for downloads restored completed from a store.
    public var checks: CompletionChecks?
    /// The download's mirrors (``DownloadOptions/mirrors``) without their passwords, in the order
    /// they are tried; empty when it has none.
    public var mirrors: [URL]
    /// For an ``DownloadState/interrupted`` download that continues by itself when free space,
    /// the network or a fresh URL comes, what it waits for; `nil` otherwise.
    public var waitReason: WaitReason?

    public init(id: String, url: URL, destination: URL, state: DownloadState, progress: DownloadProgress,
                lastError: String?, lastErrorCode: DownloadError.Code? = nil, attempts: Int,
                checks: CompletionChecks? = nil, mirrors: [URL] = [], waitReason: WaitReason? = nil) {
        self.id = id
        self.url = url
        self.destination = destination
        self.state = state
        self.progress = progress
        self.lastError = lastError
        self.lastErrorCode = lastErrorCode
        self.attempts = attempts
        self.checks = checks
        self.mirrors = mirrors
        self.waitReason = waitReason
    }
}
