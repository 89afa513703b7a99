import FileDownload
import Synchronization

/// A transport that does not list ``TransportCapabilities/ranges``: what a user's own transport
/// without ranged requests looks like to the downloader. Forwards to `inner`, and records whether
/// any request carried an end (the downloader must never ask it for one).
final class RangelessTransport: Transport {
    let inner: any Transport
    private let ends = Mutex(0)

    init(_ inner: any Transport) { self.inner = inner }

    var capabilities: TransportCapabilities { inner.capabilities.subtracting(.ranges) }
    /// How many requests carried an end.
    var rangedRequests: Int { ends.withLock { $0 } }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        if request.end != nil { ends.withLock { $0 += 1 } }
        try await inner.transfer(request, into: writer)
    }

    func shutdown() async { await inner.shutdown() }
}
