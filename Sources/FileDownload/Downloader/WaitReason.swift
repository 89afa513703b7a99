/// Why an ``DownloadState/interrupted`` download waits for the world to change, rather than for a
/// retry at a time: it continues by itself, in queue order, once the reason is gone. Announced by
/// ``DownloadEvent/onHold(id:reason:)`` and reported in ``DownloadInfo/waitReason``.
public enum WaitReason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The file system of the staging file has less free space than the download still needs
    /// (counting what the other running downloads on it still need), or a write met a full disk
    /// (ENOSPC). The bytes on disk are kept; the downloader looks at the free space on every tick
    /// and continues the download when it fits.
    case insufficientSpace
    /// The machine has no way to the download's server (no route: host or network unreachable,
    /// link down; a name not resolved while there is no default route): the failures
    /// ``FailurePolicy`` classes ``FailureClass/waitForNetwork``. A refused connection, a
    /// connection not made in time and a server that went silent are not among them: they count
    /// against the retries as the server's failures. The wait uses no retry; the download is tried
    /// again shortly after the network changes (``NetworkChangeMonitor``), and otherwise at most
    /// once per ``DownloaderConfiguration/networkProbeInterval``; it fails after
    /// ``DownloaderConfiguration/maxNetworkWait``.
    case waitingForNetwork
    /// The server refused the URL after the download began (401, 403, 410) and a fresh one was
    /// asked for (``DownloaderDelegate/freshURL(forID:current:reason:)``,
    /// ``DownloadEvent/needsFreshURL(id:reason:)``). It continues from its bytes at the URL the
    /// delegate gives, or at the one ``Downloader/updateURL(id:to:expiresAt:)`` sets; it fails
    /// with the server's refusal when the delegate gives none, or none within
    /// ``DownloaderConfiguration/freshURLTimeout``.
    case refreshingURL

    public var description: String { rawValue }

    /// A few words for a person: "waiting for space", "waiting for the network", "waiting for a
    /// fresh link".
    public var words: String {
        switch self {
        case .insufficientSpace: "waiting for space"
        case .waitingForNetwork: "waiting for the network"
        case .refreshingURL: "waiting for a fresh link"
        }
    }
}
