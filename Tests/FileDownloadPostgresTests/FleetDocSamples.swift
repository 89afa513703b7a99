import FileDownload
import FileDownloadPostgres
import Foundation

// The code samples of FileDownloadPostgres' doc comments and DocC catalog, compiled here so that
// they keep compiling (DocumentationSnippetTests checks that every one is an excerpt of a region
// below). Compiled, never called.
func fleetDocSamples(transports: TransportRegistry) async throws {
    // snippet: doc-postgres-settings
    let settings = try PostgresQueueSettings(
        url: URL(string: "postgres://fdl@db.example.org:5432/downloads")!,
        password: ProcessInfo.processInfo.environment["PGPASSWORD"])
    // end-snippet

    // snippet: doc-postgres-queue
    let queue = PostgresDownloadQueue(settings: settings)
    try await queue.add([QueuedDownload(url: URL(string: "https://example.org/a.iso")!)])
    await queue.close()
    // end-snippet

    // snippet: doc-fleet-worker
    let worker = FleetWorker(queue: queue, transports: transports,
                             configuration: .init(directory: URL(fileURLWithPath: "/srv/data")))
    try await worker.run()      // until stop() or the task is cancelled
    // end-snippet
}
