import FileDownload
import FileDownloadHTTP
import Foundation

/// Downloads the URLs given on the command line into the current directory, following them
/// with a delegate or, with `--events`, with the event sequence. Exits 0 when every file was
/// downloaded, 1 when one was not.
///
///     swift run EmbeddingExample [--events] URL...
@main
enum EmbeddingExample {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let useEvents = arguments.first == "--events"
        if useEvents { arguments.removeFirst() }
        let urls = arguments.compactMap(URL.init(string:))
        guard !urls.isEmpty, urls.count == arguments.count else {
            print("usage: EmbeddingExample [--events] URL...")
            exit(64)
        }
        let outcomes = useEvents ? try await downloadFollowingEvents(urls) : try await downloadWithDelegate(urls)
        if !outcomes.values.allSatisfy(\.isCompleted) { exit(1) }
    }

    static func downloadWithDelegate(_ urls: [URL]) async throws -> [String: DownloadOutcome] {
        // snippet: embedding-with-delegate
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(), for: "http", "https")
        let downloader = Downloader(transports: transports, delegate: PrintingDelegate())
        var ids: [String] = []
        for (index, url) in urls.enumerated() {
            try await downloader.start(id: "file-\(index)", url: url)
            ids.append("file-\(index)")
        }
        let outcomes = try await downloader.outcomes(of: ids)  // every download is over
        await downloader.shutdown()  // returns once the delegate was told everything
        // end-snippet
        return outcomes
    }

    static func downloadFollowingEvents(_ urls: [URL]) async throws -> [String: DownloadOutcome] {
        // snippet: embedding-with-events
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(), for: "http", "https")
        let downloader = Downloader(transports: transports)
        let events = downloader.events()  // subscribe first, so nothing is missed
        var ids: [String] = []
        for (index, url) in urls.enumerated() {
            try await downloader.start(id: "file-\(index)", url: url)
            ids.append("file-\(index)")
        }
        let printer = Task {
            for await event in events {
                if case .progress(let id, let progress) = event {
                    print("\(id): \(Int(progress.fractionCompleted * 100))%")
                }
            }
        }
        // Completed, failed, cancelled, paused or interrupted with no retry due: each is an end.
        let outcomes = try await downloader.outcomes(of: ids)
        await downloader.shutdown()  // ends the event sequence, and so the printer
        await printer.value
        for (id, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            print("\(id): \(outcome)")
        }
        // end-snippet
        return outcomes
    }
}
