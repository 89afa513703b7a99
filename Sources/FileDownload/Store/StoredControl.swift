/// A request to a stored download that no ``Downloader`` runs: what `fdl pause` and `fdl cancel`
/// do to a state directory when no `fdl` holds it (``DownloadStore/apply(_:toStored:)``).
package enum StoredControl: Sendable {
    /// Pause: a waiting or interrupted download becomes paused, keeping its bytes.
    case pause
    /// Cancel: an unfinished download becomes cancelled, its staging file deleted.
    case cancel
}
