import FileDownload
import FileDownloadMock
import Foundation
import Synchronization

/// A transport whose first attempt writes `written` bytes of `content`, then ignores its
/// cancellation until ``release()``, and only then tries to write more and returns, as a plug-in
/// stuck in a blocking call would. Every later attempt is served by the mock.
final class ZombieTransport: Transport, Sendable {
    let mock: MockTransport
    let content: MockContent
    let written: Int64
    private let state = Mutex((first: true, parked: CheckedContinuation<Void, Never>?.none,
                               watchers: [CheckedContinuation<Void, Never>](), done: [CheckedContinuation<Void, Never>](),
                               ended: false))

    init(mock: MockTransport, content: MockContent, written: Int64) {
        self.mock = mock
        self.content = content
        self.written = written
    }

    var capabilities: TransportCapabilities { mock.capabilities }

    func transfer(_ request: TransferRequest, into sink: TransferSink) async throws {
        guard state.withLock({ s in defer { s.first = false }; return s.first }) else {
            try await mock.transfer(request, into: sink)
            return
        }
        try sink.begin(TransferHead(disposition: .resumed(at: 0), expectedLength: content.size, validator: content.defaultValidator))
        try content.bytes(in: 0..<written).withUnsafeBytes { try sink.write($0) }
        await withCheckedContinuation { continuation in
            let watchers = state.withLock { s in
                s.parked = continuation
                defer { s.watchers = [] }
                return s.watchers
            }
            for watcher in watchers { watcher.resume() }
        }
        // Back from the stuck call: a late write (refused by the sealed sink), then the end.
        _ = try? content.bytes(in: written..<(written * 2)).withUnsafeBytes { try sink.write($0) }
        defer {
            for waiter in state.withLock({ s in defer { s.done = []; s.ended = true }; return s.done }) { waiter.resume() }
        }
        throw CancellationError()
    }

    /// Returns once the first attempt is stuck.
    func waitUntilStuck() async {
        await withCheckedContinuation { continuation in
            let stuck = state.withLock { s in
                if s.parked == nil { s.watchers.append(continuation) }
                return s.parked != nil
            }
            if stuck { continuation.resume() }
        }
    }

    /// Lets the stuck attempt return; returns once it has (and the downloader has seen its end).
    func release() async {
        let parked = state.withLock { s in defer { s.parked = nil }; return s.parked }
        await withCheckedContinuation { continuation in
            let ended = state.withLock { s in
                if !s.ended { s.done.append(continuation) }
                return s.ended
            }
            if ended { continuation.resume() }
            parked?.resume()
        }
    }
}
