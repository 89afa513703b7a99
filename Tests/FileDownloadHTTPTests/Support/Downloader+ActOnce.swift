import FileDownload
import Testing

extension Downloader {
    /// Follows `events` (taken before the download started) until a terminal event, calling
    /// `act` once, at the first progress of at least `bytes`; returns every event seen. The
    /// downloader is shut down after `limit` of real time, which ends the loop of a test whose
    /// download never ends.
    func eventsActingOnce(_ events: AsyncStream<DownloadEvent>, after bytes: Int64, limit: Duration,
                          act: @Sendable (Downloader) async throws -> Void) async throws -> [DownloadEvent] {
        let watchdog = Task {
            try await Task.sleep(for: limit)
            await shutdown()
        }
        defer { watchdog.cancel() }
        var log: [DownloadEvent] = []
        var acted = false
        loop: for await event in events {
            log.append(event)
            switch event {
            case .progress(_, let progress) where progress.receivedBytes >= bytes && !acted:
                acted = true
                try await act(self)
            case .completed, .failed, .cancelled:
                break loop
            default:
                continue
            }
        }
        return log
    }
}
