import FileDownload
import FileDownloadMock

/// A `MockTransport` that does not list some of its capabilities: a transport written without them.
struct CapabilityHidingTransport: Transport {
    let inner: MockTransport
    let hidden: TransportCapabilities
    var capabilities: TransportCapabilities { inner.capabilities.subtracting(hidden) }
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        try await inner.transfer(request, into: writer)
    }
}
