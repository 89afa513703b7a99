import FileDownload
import FileDownloadMock
import Foundation
import Testing

/// A temporary directory removed when the value goes away: one per test.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("fdl-mock-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file path in the directory, created holding `contents`.
    func file(_ name: String, contents: Data = Data()) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// What one attempt through a sink produced.
struct AttemptResult {
    var sink: TransferSink
    var error: (any Error)?
    var file: Data

    var downloadError: DownloadError? { error as? DownloadError }
}

/// Runs one attempt of `transport` for `url` into a staging file that already holds `existing`.
func attempt(
    _ transport: any Transport, _ url: URL, in scratch: ScratchDirectory, existing: Data = Data(),
    validator: Validator? = nil, options: TransferOptions = TransferOptions(),
    validateHead: @escaping @Sendable (TransferHead) throws -> Void = { _ in },
    authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
) async throws -> AttemptResult {
    let path = try scratch.file("staging-\(UUID().uuidString)", contents: existing)
    let sink = try TransferSink(path: path, requestedOffset: Int64(existing.count), validateHead: validateHead)
    let request = TransferRequest(downloadID: "test", url: url, offset: Int64(existing.count), validator: validator,
                                  options: options, authenticate: authenticate)
    var failure: (any Error)?
    do { try await transport.transfer(request, into: sink) } catch { failure = error }
    sink.seal()
    return AttemptResult(sink: sink, error: failure, file: try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Calls `body` once, from any thread: hands a test the moment a sink's head arrived.
final class HeadSignal: Sendable {
    private let stream: AsyncStream<TransferHead>
    private let continuation: AsyncStream<TransferHead>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: TransferHead.self) }

    /// Pass this as a sink's `validateHead`.
    var validateHead: @Sendable (TransferHead) throws -> Void {
        { [continuation] head in continuation.yield(head) }
    }

    /// Returns the first head (or `nil` when the task is cancelled first).
    func first() async -> TransferHead? {
        for await head in stream { return head }
        return nil
    }
}
