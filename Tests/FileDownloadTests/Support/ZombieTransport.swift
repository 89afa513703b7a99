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
    private let first = Mutex(true)
    private let stuck = Gate()
    private let ended = Gate()

    init(mock: MockTransport, content: MockContent, written: Int64) {
        self.mock = mock
        self.content = content
        self.written = written
    }

    var capabilities: TransportCapabilities { mock.capabilities }

    func transfer(_ request: TransferRequest, into writer: TransferWriter) async throws {
        guard first.withLock({ value in defer { value = false }; return value }) else {
            try await mock.transfer(request, into: writer)
            return
        }
        defer { ended.arrive() }
        try writer.begin(TransferHead(disposition: .resumed(at: 0), expectedLength: content.size, validator: content.defaultValidator))
        try content.bytes(in: 0..<written).withUnsafeBytes { try writer.write($0) }
        await stuck.park()
        // Back from the stuck call: a late write (refused by the sealed sink), then the end.
        _ = try? content.bytes(in: written..<(written * 2)).withUnsafeBytes { try writer.write($0) }
        throw CancellationError()
    }

    /// Returns once the first attempt is stuck.
    func waitUntilStuck() async { await stuck.waitForArrival() }

    /// Lets the stuck attempt return; returns once it has.
    func release() async {
        stuck.release()
        await ended.waitForArrival()
    }
}
