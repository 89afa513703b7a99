import FileDownload
import Synchronization

/// A transport without ``TransportCapabilities/rateLimit``: it writes its whole body at once and
/// never waits, remembering the ``TransferWriter/pacingDelay`` its writer asked for afterwards.
final class UnpacedTransport: Transport, Sendable {
    let size: Int
    private let asked = Mutex<Duration?>(nil)

    init(size: Int) { self.size = size }

    var capabilities: TransportCapabilities { [.expectedLength] }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        try writer.begin(TransferHead(disposition: .resumed(at: 0), statusCode: 200, expectedLength: Int64(size)))
        try [UInt8](repeating: 7, count: size).withUnsafeBytes { try writer.write($0) }
        let delay = writer.pacingDelay
        asked.withLock { $0 = delay }
    }

    /// The pacing delay the writer asked for after the last transfer's body.
    var pacingDelay: Duration? { asked.withLock { $0 } }
}
