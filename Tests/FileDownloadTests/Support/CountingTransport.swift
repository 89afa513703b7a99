import FileDownload
import Synchronization

/// Wraps a transport and counts the transfers running at once, and the order they began in.
final class CountingTransport: Transport {
    let inner: any Transport
    private let state = Mutex((running: 0, peak: 0, order: [String]()))

    init(_ inner: any Transport) { self.inner = inner }

    var capabilities: TransportCapabilities { inner.capabilities }
    var peak: Int { state.withLock { $0.peak } }
    var order: [String] { state.withLock { $0.order } }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        state.withLock { s in
            s.running += 1
            s.peak = max(s.peak, s.running)
            s.order.append(request.downloadID)
        }
        defer { state.withLock { $0.running -= 1 } }
        try await inner.transfer(request, into: writer)
    }
}
