import FileDownload
import Foundation
import Synchronization

/// A delegate whose first `validateFile` call does not return until ``release()``: an attempt
/// stuck after its transport returned, in the library's own hands.
final class StuckValidation: DownloaderDelegate, Sendable {
    private let state = Mutex((calls: 0, parked: CheckedContinuation<Void, Never>?.none,
                               watchers: [CheckedContinuation<Void, Never>]()))

    func validateFile(at url: URL, id: String) async -> Bool {
        let first = state.withLock { s in
            s.calls += 1
            return s.calls == 1
        }
        guard first else { return true }
        await withCheckedContinuation { continuation in
            let watchers = state.withLock { s in
                s.parked = continuation
                defer { s.watchers = [] }
                return s.watchers
            }
            for watcher in watchers { watcher.resume() }
        }
        return true
    }

    /// Returns once the first validation is stuck.
    func waitUntilStuck() async {
        await withCheckedContinuation { continuation in
            let stuck = state.withLock { s in
                if s.parked == nil { s.watchers.append(continuation) }
                return s.parked != nil
            }
            if stuck { continuation.resume() }
        }
    }

    /// Lets the stuck validation return.
    func release() {
        state.withLock { s in defer { s.parked = nil }; return s.parked }?.resume()
    }
}
