import FileDownload
import FileDownloadMock

/// A broken transport for the conformance tests: it lists `.ranges` but asks for everything from
/// the offset, dropping the request's end.
struct RangeForgettingTransport: Transport {
    let inner: MockTransport
    var capabilities: TransportCapabilities { inner.capabilities }
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        var open = request
        open.end = nil
        try await inner.transfer(open, into: writer)
    }
}
