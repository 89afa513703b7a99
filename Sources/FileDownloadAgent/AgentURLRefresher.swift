public import FileDownload
public import Foundation

/// The agent's answer to `DownloaderDelegate.freshURL(forID:current:reason:)`: it keeps the
/// question open, at most ``timeout``, so that the download waits for a client to send a URL with
/// `PUT /v1/downloads/{id}/url` after the `needsFreshURL` event. That request re-points the
/// download through `Downloader.updateURL(id:to:expiresAt:)` (checked like any other) and
/// withdraws the question; when none comes in time the answer is `nil` (the download fails as it
/// would without a delegate).
///
/// ``DownloadAgent`` makes one for its downloader; an ``AgentServer`` given one (a foreground
/// `fdl get --fresh-url-timeout`) hands it the URLs of that request, and the owner of the
/// downloader calls ``freshURL(forID:current:reason:)`` from its own delegate.
public actor AgentURLRefresher: DownloaderDelegate {
    /// How long a question waits for a client's URL.
    public let timeout: Duration
    private var waiting: [String: [UUID: CheckedContinuation<URL?, Never>]] = [:]

    /// A refresher whose questions wait at most `timeout`.
    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Waits until `PUT /v1/downloads/{id}/url` re-points the download, ``timeout`` passes or the
    /// task is cancelled; answers `nil` in every case (a re-pointed download ignores the answer).
    public func freshURL(forID id: String, current: URL, reason: URLRefreshReason) async -> URL? {
        let ticket = UUID()
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting[id, default: [:]][ticket] = continuation
                timer = Task { [timeout] in
                    if !Task.isCancelled { try? await Task.sleep(for: timeout) }
                    self.answer(ticket, of: id, with: nil)
                }
                if Task.isCancelled { answer(ticket, of: id, with: nil) }
            }
        } onCancel: {
            Task { await self.answer(ticket, of: id, with: nil) }
        }
    }

    /// Ends the questions about `id` that wait now with `nil`: the caller re-pointed the download
    /// itself (`Downloader.updateURL(id:to:expiresAt:)`), so the downloader ignores their answer.
    func withdraw(_ id: String) {
        guard let questions = waiting.removeValue(forKey: id) else { return }
        for continuation in questions.values { continuation.resume(returning: nil) }
    }

    private func answer(_ ticket: UUID, of id: String, with url: URL?) {
        guard let continuation = waiting[id]?.removeValue(forKey: ticket) else { return }
        if waiting[id]?.isEmpty == true { waiting[id] = nil }
        continuation.resume(returning: url)
    }
}
