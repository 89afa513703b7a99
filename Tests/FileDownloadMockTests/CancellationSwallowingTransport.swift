import FileDownload
import FileDownloadMock

/// Turns cancellation into a normal return: a transport that swallows cancellation.
struct CancellationSwallowingTransport: Transport {
    let inner: MockTransport
    var capabilities: TransportCapabilities { inner.capabilities }
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        do { try await inner.transfer(request, into: writer) } catch is CancellationError {}
    }
}
