@testable import CustomTransportExample
import FileDownload
import FileDownloadConformance
import FileDownloadMock
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// The code samples of the FileDownloadMock and FileDownloadConformance DocC articles, compiled
// here so that they keep compiling (DocumentationSnippetTests checks that they match).

/// The FileDownloadMock article's samples, in article order. Compiled, never called.
func mockArticleSamples(data: Data, downloader: Downloader) async throws {
    // snippet: mock-article-serve
    let clock = ManualClock()
    let mock = MockTransport(clock: clock)
    let url = URL(string: "mock://example/big.bin")!

    // 1 MB generated from a seed (splitmix64), in 64 KiB chunks, one chunk per virtual 10 ms.
    mock.serve(url, MockResource(.seeded(seed: 7, size: 1_000_000), chunkDelay: .milliseconds(10)))

    var transports = TransportRegistry()
    transports.register(mock, for: "mock")
    // end-snippet
    _ = transports

    // snippet: mock-article-script
    mock.script(url, attempts: [
        .drop(at: 300_000),                         // connection lost after 300,000 bytes (retryable)
        .status(503, retryAfter: .seconds(5)),      // then a 503 with Retry-After
        .stall(at: 600_000),                        // then silence until the task is cancelled
        .changeContent(to: .seeded(seed: 8, size: 1_000_000)),  // the remote file changed
        .ignoreRange,                               // the server answers from byte zero
        .error(at: 0, DownloadError(.protocolViolation, "bad Content-Range")),
    ])
    // end-snippet

    // snippet: mock-article-authentication
    mock.serve(url, MockResource(.bytes(data), authentication: [
        .trust(.serverTrust(host: "example", port: 443, reason: "self-signed")),
        .credential(.password(user: "ann", password: "secret")),
    ]))
    // end-snippet

    // snippet: mock-article-assert
    let records = mock.requests(for: url)
    #expect(records.map(\.offset) == [0, 300_000, 300_000])
    #expect(records[1].validator == records[0].head?.validator)
    #expect(mock.bytesServed(for: url) == 1_000_000 + 700_000)
    #expect(mock.unconsumed().isEmpty)          // every scripted attempt was used
    // end-snippet

    // snippet: mock-article-time
    let task = Task { try await downloader.start(id: "a", url: url) /* ... */ }
    await clock.waitForSleepers(atLeast: 1)     // the transfer is waiting for its next chunk
    clock.advance(by: .milliseconds(10))        // one more chunk
    clock.advanceToNextDeadline()               // or jump to whatever is due next
    // end-snippet
    task.cancel()
}

/// The transport of the conformance article's sample: the file transport of Examples/CustomTransport.
typealias MyTransport = FileTransport

/// The "server" of the conformance article's sample: a directory served through `file://` URLs,
/// with a named pipe at `/stall` that sends 64 KiB and then nothing.
struct MyTestServer {
    let root: URL
    let writer: StallingWriter

    static func start() throws -> MyTestServer {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("my-test-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("private"), withIntermediateDirectories: true)
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 3) }).write(to: root.appendingPathComponent("file.bin"))
        guard mkfifo(root.appendingPathComponent("stall").path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return MyTestServer(root: root, writer: StallingWriter(path: root.appendingPathComponent("stall").path))
    }

    func url(_ path: String) -> URL { root.appendingPathComponent(String(path.dropFirst())) }
    func path(_ path: String) -> URL { url(path) }

    /// Same size, new bytes, a later mtime.
    func rewrite(_ path: String) throws {
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 5) }).write(to: url(path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: url(path).path)
    }

    func stop() {
        writer.finish()
        try? FileManager.default.removeItem(at: root)
    }
}

// snippet: conformance-article
@Test func myTransportConforms() async throws {
    let server = try MyTestServer.start()          // listens on 127.0.0.1, a free port
    defer { server.stop() }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }

    let fixture = ConformanceFixture(
        resource: server.url("/file.bin"),
        expectedContent: { try Data(contentsOf: server.path("/file.bin")) },
        missingResource: server.url("/missing.bin"),
        changeResource: { try server.rewrite("/file.bin") },
        stallingResource: server.url("/stall"),
        authenticatedResource: (server.url("/private/file.bin"), .password(user: "ann", password: "pw")),
        scratchDirectory: scratch)

    let report = await TransportConformance(transport: MyTransport(), fixture: fixture).run()
    #expect(report.passed, "\(report)")
}
// end-snippet
