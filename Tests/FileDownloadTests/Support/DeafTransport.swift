import FileDownload

/// A transport that never returns and ignores its cancellation: the worst a plug-in can do.
final class DeafTransport: Transport, Sendable {
    private let gate = Gate()

    var capabilities: TransportCapabilities { [] }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        try writer.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: nil))
        await gate.park()
        throw CancellationError()
    }

    /// Returns once a transfer is parked.
    func waitForTransfer() async { await gate.waitForArrival() }

    /// Lets every parked transfer return.
    func release() { gate.release() }
}
