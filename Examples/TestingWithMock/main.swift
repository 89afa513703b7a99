import FileDownload
import FileDownloadMock
import Foundation

// Runs the app's update logic against a simulated flaky server: the first attempt at the model
// loses its connection half-way, the downloader retries and resumes, and the report says so.
// Tests/ExamplesTests/AssetUpdaterTests.swift does the same on a manual clock, without waiting.
let mock = MockTransport()
let model = MockContent.seeded(seed: 1, size: 2_000_000)
let modelURL = URL(string: "mock://assets.example/model.bin")!
mock.serve(modelURL, MockResource(model))
mock.script(modelURL, attempts: [.drop(at: 1_000_000)])
var transports = TransportRegistry()
transports.register(mock, for: "mock")

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("testing-with-mock-example")
try? FileManager.default.removeItem(at: directory)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let policy = RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(100))
let downloader = Downloader(configuration: DownloaderConfiguration(retryPolicy: policy), transports: transports)
let report = try await AssetUpdater(downloader: downloader, directory: directory)
    .update([Asset(name: "model.bin", url: modelURL, sha256: model.sha256)])
print("ready: \(report.ready.sorted()), failed: \(report.failed), retries: \(report.retries)")
print("requests at offsets: \(mock.requests(for: modelURL).map(\.offset))")
await downloader.shutdown()
