import FileDownload
import FileDownloadHTTP
import Foundation

/// Downloads the URLs given on the command line into the current directory, twice over:
/// following them once with a delegate and once with the event sequence.
///
///     swift run EmbeddingExample [--events] URL...
@main
enum EmbeddingExample {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let useEvents = arguments.first == "--events"
        if useEvents { arguments.removeFirst() }
        let urls = arguments.compactMap(URL.init(string:))
        guard !urls.isEmpty else {
            print("usage: EmbeddingExample [--events] URL...")
            return
        }
        if useEvents {
            try await downloadFollowingEvents(urls)
        } else {
            try await downloadWithDelegate(urls)
        }
    }

    static func downloadWithDelegate(_ urls: [URL]) async throws {
        // snippet: embedding-with-delegate
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(), for: "http", "https")
        let (finished, continuation) = AsyncStream.makeStream(of: String.self)
        let downloader = Downloader(transports: transports, delegate: PrintingDelegate(finished: continuation))
        for (index, url) in urls.enumerated() {
            try await downloader.start(id: "file-\(index)", url: url)
        }
        for await _ in finished.prefix(urls.count) {}
        await downloader.shutdown()
        // end-snippet
    }

    static func downloadFollowingEvents(_ urls: [URL]) async throws {
        // snippet: embedding-with-events
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(), for: "http", "https")
        let downloader = Downloader(transports: transports)
        let events = downloader.events()  // subscribe first, so nothing is missed
        for (index, url) in urls.enumerated() {
            try await downloader.start(id: "file-\(index)", url: url)
        }
        var over = 0
        for await event in events {
            switch event {
            case .progress(let id, let progress):
                print("\(id): \(Int(progress.fractionCompleted * 100))%")
            case .completed(let id, let file):
                print("\(id): saved to \(file.path)")
                over += 1
            case .failed(let id, let error, _):
                print("\(id): failed: \(error.message)")
                over += 1
            default:
                break
            }
            if over == urls.count { break }
        }
        await downloader.shutdown()
        // end-snippet
    }
}
