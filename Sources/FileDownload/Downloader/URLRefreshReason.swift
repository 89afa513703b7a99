/// Why a download asks for a fresh URL (``DownloaderDelegate/freshURL(forID:current:reason:)``,
/// ``DownloadEvent/needsFreshURL(id:reason:)``).
public enum URLRefreshReason: Sendable, Hashable, CustomStringConvertible {
    /// The server refused the URL with this status (401, 403 or 410) after the download began
    /// (it had bytes or a validator): a signed or token URL that expired, most likely.
    case refused(statusCode: Int)
    /// The URL expires soon (``DownloadOptions/urlExpiresAt``): asked before it does, while the
    /// download goes on with it.
    case expiresSoon

    public var description: String {
        switch self {
        case .refused(let status): "refused (\(status))"
        case .expiresSoon: "expires soon"
        }
    }

    /// The statuses that make a download that began ask for a fresh URL.
    static let refreshStatuses: Set<Int> = [401, 403, 410]
}
