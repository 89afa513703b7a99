import FileDownload
import Synchronization

/// A transport that never returns and ignores its cancellation: the worst a plug-in can do.
final class DeafTransport: Transport, Sendable {
    private let state = Mutex((parked: [CheckedContinuation<Void, Never>](), watchers: [CheckedContinuation<Void, Never>]()))

    var capabilities: TransportCapabilities { [] }

    func transfer(_ request: TransferRequest, into sink: TransferSink) async throws {
        try sink.begin(TransferHead(disposition: .restarted(.resumeUnsupported), expectedLength: nil))
        await withCheckedContinuation { continuation in
            let watchers = state.withLock { s in
                s.parked.append(continuation)
                defer { s.watchers = [] }
                return s.watchers
            }
            for watcher in watchers { watcher.resume() }
        }
        throw CancellationError()
    }

    /// Returns once a transfer is parked.
    func waitForTransfer() async {
        await withCheckedContinuation { continuation in
            let parked = state.withLock { s in
                if s.parked.isEmpty { s.watchers.append(continuation) }
                return !s.parked.isEmpty
            }
            if parked { continuation.resume() }
        }
    }

    /// Lets every parked transfer return.
    func release() {
        for continuation in state.withLock({ s in defer { s.parked = [] }; return s.parked }) { continuation.resume() }
    }
}
