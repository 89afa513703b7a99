// snippet: readme-quick-start
import FileDownload
import FileDownloadHTTP
import Foundation

// swift run QuickStartExample https://example.org/debian.iso
guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
    print("usage: QuickStartExample URL")
    exit(64)
}

var transports = TransportRegistry()
transports.register(try HTTPTransport(), for: "http", "https")
let downloader = Downloader(
    configuration: DownloaderConfiguration(maxConcurrentDownloads: 4),
    transports: transports
)
downloader.observe { event in  // every event, in order, as it happens
    if case .progress(let id, let p) = event { print(id, p.receivedBytes, "of", p.expectedBytes ?? -1) }
}
try await downloader.start(id: "iso", url: url)
// Returns once the download is over: completed, failed, cancelled, paused or interrupted.
let outcome = try await downloader.outcome(of: "iso")
await downloader.shutdown()
guard case .completed(let file) = outcome else {
    print("not downloaded:", outcome)
    exit(1)
}
print("saved to", file.path)
// end-snippet
