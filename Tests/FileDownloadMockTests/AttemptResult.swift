import FileDownload
import FileDownloadMock
import FileDownloadTestSupport
import Foundation

/// What one attempt through a sink produced.
struct AttemptResult {
    var sink: TransferSink
    var error: (any Error)?
    var file: Data

    var downloadError: DownloadError? { error as? DownloadError }
}

/// Runs one attempt of `transport` for `url` into a staging file that already holds `existing`.
func attempt(
    _ transport: any Transport, _ url: URL, in scratch: TemporaryDirectory, existing: Data = Data(),
    validator: Validator? = nil, options: TransferOptions = TransferOptions(),
    validateHead: @escaping @Sendable (TransferHead) throws -> Void = { _ in },
    authenticate: @escaping @Sendable (AuthChallenge) async -> AuthDisposition = { _ in .performDefaultHandling }
) async throws -> AttemptResult {
    let path = try scratch.createFile("staging-\(UUID().uuidString)", contents: existing)
    let sink = try TransferSink(path: path, requestedOffset: Int64(existing.count), validateHead: validateHead)
    let request = TransferRequest(downloadID: "test", url: url, offset: Int64(existing.count), validator: validator,
                                  options: options, authenticate: authenticate)
    var failure: (any Error)?
    do { try await transport.transfer(request, into: sink) } catch { failure = error }
    sink.seal()
    return AttemptResult(sink: sink, error: failure, file: try Data(contentsOf: URL(fileURLWithPath: path)))
}
