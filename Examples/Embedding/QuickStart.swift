import FileDownload
import FileDownloadHTTP
import Foundation

/// The README's quick start, compiled (the README shows it as top-level code).
func readmeQuickStart() async throws {
    // snippet: readme-quick-start
    var transports = TransportRegistry()
    transports.register(try HTTPTransport(), for: "http", "https")
    let downloader = Downloader(
        configuration: DownloaderConfiguration(maxConcurrentDownloads: 4),
        transports: transports
    )
    let events = downloader.events()   // subscribe before starting, miss nothing
    try await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!,
                               options: DownloadOptions(sha256: "…"))
    for await event in events {
        switch event {
        case .progress(let id, let p): print(id, p.receivedBytes, p.expectedBytes ?? -1)
        case .completed(let id, let file): print(id, "done:", file.path)
        case .failed(let id, let error, _): print(id, "failed:", error)
        default: break
        }
    }
    // end-snippet
}
