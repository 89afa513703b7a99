public import Foundation
public import FileDownload

/// A download to put in the shared queue with ``PostgresDownloadQueue/add(_:)``.
public struct QueuedDownload: Sendable, Hashable {
    /// Unique in the queue.
    public var id: String
    /// The remote URL; stored without its password.
    public var url: URL
    /// The file's path relative to each worker's directory (`name` or `sub/dir/name`): no `..`,
    /// no leading `/`, no empty component.
    public var destination: String
    /// Stored without secrets (no sensitive headers, no credentials).
    public var options: DownloadOptions

    /// Creates a download to queue. `destination` defaults to the name the URL suggests
    /// (`FileNameSanitizer.fileName(for:)`), `id` to the destination.
    public init(id: String? = nil, url: URL, destination: String? = nil, options: DownloadOptions = DownloadOptions()) {
        let name = destination ?? FileNameSanitizer.fileName(for: url)
        self.id = id ?? name
        self.url = url
        self.destination = name
        self.options = options
    }

    /// The most characters a queued id may have: a worker knows a claim as `CLAIM:ID`
    /// (`LocalID`), which must itself pass `InputValidation.checkIdentifier(_:)`.
    static let maximumIdentifierLength = InputValidation.maximumIdentifierLength - LocalID.claimPrefixRoom

    /// Refuses an id longer than ``maximumIdentifierLength`` (after `InputValidation` accepted it).
    ///
    /// - Throws: `DownloadError` with code `invalidIdentifier`.
    static func checkIdentifierRoom(_ id: String) throws(DownloadError) {
        let count = id.unicodeScalars.count
        guard count > maximumIdentifierLength else { return }
        throw DownloadError(.invalidIdentifier,
                            "a queued download's id must be 1 to \(maximumIdentifierLength) characters (a worker adds its claim number to it); this one has \(count)")
    }

    /// Why `destination` cannot be used under a worker's directory, or `nil` when it can: it
    /// must pass `DestinationPolicy.problem(withRelativePath:)` (relative; each component a plain
    /// name without control characters or a leading dot) and not be the worker's lock file.
    static func problem(destination: String) -> String? {
        if destination == DirectoryLock.fileName {
            return "the destination \(destination) is the worker's lock file"
        }
        return DestinationPolicy.problem(withRelativePath: destination)
    }
}
