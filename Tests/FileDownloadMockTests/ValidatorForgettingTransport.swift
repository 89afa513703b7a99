import FileDownload
import FileDownloadMock

/// Forgets the validator of every request: resumes blindly and so splices a changed file.
struct ValidatorForgettingTransport: Transport {
    let inner: MockTransport
    var capabilities: TransportCapabilities { inner.capabilities }
    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        var blind = request
        blind.validator = nil
        try await inner.transfer(blind, into: writer)
    }
}
