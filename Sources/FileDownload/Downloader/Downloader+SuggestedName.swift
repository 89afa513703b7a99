import Foundation

extension Downloader {
    /// The file names of the other downloads of this downloader in `e`'s destination directory
    /// (their destinations and staging files), for ``DownloadOptions/usesSuggestedFileName``;
    /// empty when `e` does not use it.
    func takenNames(besides e: DownloadEntry) -> Set<String> {
        guard e.options.usesSuggestedFileName else { return [] }
        let directory = e.destination.deletingLastPathComponent().standardizedFileURL.path
        var names = Set<String>()
        for other in entries.values where other.id != e.id {
            if other.destination.deletingLastPathComponent().standardizedFileURL.path == directory {
                names.insert(other.destination.lastPathComponent)
            }
            if (other.partPath as NSString).deletingLastPathComponent == directory {
                names.insert((other.partPath as NSString).lastPathComponent)
            }
        }
        return names
    }
}
