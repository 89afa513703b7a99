@testable import CustomTransportExample
import FileDownload
import FileDownloadConformance
import FileDownloadHTTP
import FileDownloadMock
import FileDownloadSFTP
import FileDownloadSQLite
import Foundation
import Testing
import XCTest

// The code samples of the doc comments in Sources/, compiled here so that they keep compiling
// (DocumentationSnippetTests checks that every one is an excerpt of a region below).

/// `Downloader`, `Downloader.outcome(of:)` and `TransportRegistry`. Compiled, never called.
func downloaderDocCommentSamples(url: URL) async throws {
    // snippet: doc-downloader
    var transports = TransportRegistry()
    transports.register(try HTTPTransport(), for: "http", "https")
    let downloader = Downloader(transports: transports)
    try await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!)
    if case .completed(let file) = try await downloader.outcome(of: "iso") {
        print("saved to", file.path)
    }
    await downloader.shutdown()
    // end-snippet

    // snippet: doc-outcome
    try await downloader.start(id: "iso", url: url)
    switch try await downloader.outcome(of: "iso") {
    case .completed(let file): print("saved to", file.path)
    case let other: print("not downloaded:", other)
    }
    // end-snippet
}

/// `TransportRegistry`. Compiled, never called.
/// `FTPTransport`'s doc comment and docs/ftp.md.
func ftpTransportDocCommentSample() throws -> TransportRegistry {
    // snippet: doc-ftp-transport
    var transports = TransportRegistry()
    transports.register(try FTPTransport(), for: "ftp", "ftps")
    // end-snippet
    return transports
}

/// `S3Transport`'s doc comment and docs/s3.md. Compiled, never called.
func s3TransportDocCommentSample() throws -> TransportRegistry {
    // snippet: doc-s3-transport
    var transports = TransportRegistry()
    transports.register(try S3Transport(), for: "s3")
    // An S3-compatible store:
    transports.register(try S3Transport(configuration: .init(
        endpoint: URL(string: "https://minio.example.org:9000"), region: "us-east-1")), for: "s3")
    // end-snippet
    return transports
}

func transportRegistryDocCommentSample() throws -> TransportRegistry {
    // snippet: doc-transport-registry
    var transports = TransportRegistry()
    transports.register(try HTTPTransport(), for: "http", "https")
    transports.register(MyTransport(), for: "myproto")
    // end-snippet
    return transports
}

/// `SFTPTransport`, `SQLiteDownloadStore`. Compiled, never called.
func transportAndStoreDocCommentSamples(appSupport: URL, config: DownloaderConfiguration) async throws {
    // snippet: doc-sftp-transport
    var transports = TransportRegistry()
    transports.register(SFTPTransport(), for: "sftp")
    // end-snippet

    // snippet: doc-sqlite-store
    let store = try await SQLiteDownloadStore(path: appSupport.appending(path: "downloads.sqlite").path)
    let downloader = Downloader(configuration: config, transports: transports, store: store)
    try await downloader.restore()
    // end-snippet
}

/// `TransportConformance`, `ConformanceReport`. Compiled, never called.
func conformanceDocCommentSamples(port: Int, servedFile: URL, scratch: URL) async {
    // snippet: doc-transport-conformance
    let fixture = ConformanceFixture(
        resource: URL(string: "http://127.0.0.1:\(port)/file.bin")!,
        expectedContent: { try Data(contentsOf: servedFile) },
        missingResource: URL(string: "http://127.0.0.1:\(port)/missing")!,
        scratchDirectory: scratch)
    let report = await TransportConformance(transport: MyTransport(), fixture: fixture).run()
    #expect(report.passed, "\(report)")
    // end-snippet

    // snippet: doc-conformance-report
    #expect(report.passed, "\(report)")           // Swift Testing
    XCTAssertTrue(report.passed, "\(report)")     // XCTest
    // end-snippet
}

/// `MockTransport`, `MockResource`, `MockAttempt`, `ManualClock`. Compiled, never called.
func mockDocCommentSamples() async throws {
    // snippet: doc-mock-transport
    let clock = ManualClock()
    let mock = MockTransport(clock: clock)
    let url = URL(string: "mock://files/big.bin")!
    mock.serve(url, MockResource(.seeded(seed: 1, size: 1_000_000)))
    mock.script(url, attempts: [.drop(at: 400_000)])      // first attempt: connection lost

    var transports = TransportRegistry()
    transports.register(mock, for: "mock")
    // ... run the downloader, then:
    #expect(mock.requests(for: url).map(\.offset) == [0, 400_000])
    #expect(mock.unconsumed().isEmpty)
    // end-snippet

    // snippet: doc-mock-resource
    mock.serve(url, MockResource(.seeded(seed: 7, size: 1 << 20), chunkSize: 16 * 1024,
                                 chunkDelay: .milliseconds(10)))
    // end-snippet

    // snippet: doc-mock-attempt
    mock.script(url, attempts: [
        .drop(at: 100_000),                               // connection lost after 100,000 bytes
        .status(503, retryAfter: .seconds(2)),            // then a 503
        .changeContent(to: .seeded(seed: 2, size: 300_000)).ignoringRange(),
        .normal,
    ])
    // end-snippet
}

/// `ManualClock`. Compiled, never called.
func manualClockDocCommentSample() async throws {
    // snippet: doc-manual-clock
    let clock = ManualClock()
    let task = Task { try await clock.sleep(for: .seconds(5)) }
    await clock.waitForSleepers(atLeast: 1)   // the task is parked on the clock
    clock.advance(by: .seconds(5))            // ...and now it is resumed
    try await task.value
    // end-snippet
}

/// `BandwidthSchedule` and the BandwidthAndRanges article. Compiled, never called.
func bandwidthDocCommentSamples(downloader: Downloader) async {
    // snippet: doc-bandwidth-schedule
    let schedule = BandwidthSchedule([
        .init(hour: 8, bytesPerSecond: 1_000_000),     // office hours: 1 MB/s
        .init(hour: 18, bytesPerSecond: 5_000_000),    // evening: 5 MB/s
        .init(hour: 23, minute: 30, bytesPerSecond: nil),  // night: no limit
    ])
    await downloader.setBandwidthSchedule(schedule)
    // end-snippet

    // snippet: doc-bandwidth-limit
    await downloader.setBandwidthLimit(2_000_000)   // 2 MB/s for all downloads together
    var options = DownloadOptions()
    options.transfer.maxBytesPerSecond = 200_000    // and at most 200 kB/s for this one
    _ = try? await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!, options: options)
    print(downloader.bandwidthLimit ?? 0)           // 2000000
    // end-snippet
}

/// The ranged request of the BandwidthAndRanges article. Compiled, never called.
func rangedRequestDocSample(transport: any Transport, writer: TransferWriter, validator: Validator) async throws {
    // snippet: doc-ranged-request
    guard transport.capabilities.contains(.ranges) else { return }   // else: one connection
    let request = TransferRequest(downloadID: "iso", url: URL(string: "https://example.org/debian.iso")!,
                                  offset: 64 << 20, end: 128 << 20, validator: validator)
    try await transport.transfer(request, into: writer)   // exactly bytes 64 MiB ..< 128 MiB, or a restart
    // end-snippet
}

/// The segmented download of the BandwidthAndRanges article. Compiled, never called.
func segmentedDownloadDocSample(downloader: Downloader) async {
    // snippet: doc-segments
    var configuration = DownloaderConfiguration()
    configuration.segmentThreshold = 16 << 20        // the default: files of 16 MiB and more are split
    var options = DownloadOptions()
    options.maxConnections = 8                        // up to 8 connections for this download
    _ = try? await downloader.start(id: "iso", url: URL(string: "https://example.org/debian.iso")!, options: options)
    // end-snippet
    _ = configuration
}
