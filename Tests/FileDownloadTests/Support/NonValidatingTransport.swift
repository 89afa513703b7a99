import FileDownload
import FileDownloadMock

/// A transport that cannot compare validators (no ``TransportCapabilities/validators``), as a
/// custom transport may be: it continues at the offset asked for whatever file is there now.
struct NonValidatingTransport: Transport {
    let inner: MockTransport
    var capabilities: TransportCapabilities { inner.capabilities.subtracting(.validators) }
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        var blind = request
        blind.validator = nil
        try await inner.transfer(blind, into: writer)
    }
}
