import FileDownload
import Testing

extension Harness {
    /// Starts download `id` and parks it: downloading, 1000 of 10,000 bytes on disk, the transfer
    /// stalled (the tick loop and the transfer wait on the clock).
    func stalled(_ id: String = "a", options: DownloadOptions? = nil) async throws {
        serve(id, size: 10_000, chunkSize: 500)
        mock.script(url(id), attempts: [.stall(at: 1000)])
        try await downloader.start(id: id, url: url(id), options: options)
        await parked(2)
    }
}

/// Expects `body` to throw a ``DownloadError`` with `code`.
func expectError(_ code: DownloadError.Code, _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(code), nothing was thrown")
    } catch let error as DownloadError {
        #expect(error.code == code, "\(error)")
    } catch {
        Issue.record("expected DownloadError \(code), got \(error)")
    }
}
