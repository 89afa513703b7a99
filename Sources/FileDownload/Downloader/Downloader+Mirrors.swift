import Foundation

extension Downloader {
    /// Failures that say nothing about the URL (the local disk, the file, the checks): another
    /// mirror would not help.
    static let localFailures: Set<DownloadError.Code> = [
        .diskFull, .fileTooLarge, .fileSystem, .invalidDestination, .validationFailed, .store,
    ]

    /// After a failed attempt of a download with mirrors (``DownloadOptions/mirrors``): moves it
    /// to its next URL and schedules an attempt at once, without using a retry. Returns `false`
    /// when the download has no mirrors, the failure is local, or the last URL failed: then the
    /// pass is over, the next attempt starts again at the first URL and the retry policy decides
    /// (a pass with any retryable failure counts as retryable).
    ///
    /// The bytes on disk go along with their validator and length only when they can be
    /// checked: the next URL's transport continues them when its answer carries the same
    /// validator and total (HTTP `If-Range`, SFTP size and mtime), else it starts over. They are
    /// started over before the next URL when nothing could tell two different files apart: no
    /// strong validator is held (the first URL gave none, or a weak one), the next URL is of
    /// another protocol family (HTTP vs SFTP), or its transport does not compare validators
    /// (no ``TransportCapabilities/validators``). A size alone is not enough: two different
    /// files of one size would be spliced.
    func switchesToNextURL(_ e: inout DownloadEntry, after error: DownloadError, now: Duration,
                           events: inout [DownloadEvent]) -> Bool {
        guard !e.options.mirrors.isEmpty, !Self.localFailures.contains(error.code) else { return false }
        if error.isRetryable { e.passHadRetryableFailure = true }
        guard e.urlIndex < e.options.mirrors.count else {
            e.urlIndex = 0
            return false
        }
        let from = e.currentURL
        e.urlIndex += 1
        let nextComparesValidators = (try? transports.transport(for: e.currentURL))?.capabilities.contains(.validators) ?? false
        if !(e.validator?.isStrong ?? false) || !nextComparesValidators
            || Self.protocolFamily(of: from) != Self.protocolFamily(of: e.currentURL) {
            e.forgetBytes()
            e.expectedLength = nil
        }
        carryOut(e.lifecycle.failureClassified(.retry(error, in: .zero, due: now)), on: &e, events: &events, now: now)
        return true
    }

    /// `http` and `https` share validators (ETag, Last-Modified); other schemes have their own.
    static func protocolFamily(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        return scheme == "https" ? "http" : scheme
    }
}
