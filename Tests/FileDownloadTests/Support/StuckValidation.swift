import FileDownload
import Foundation
import Synchronization

/// A delegate whose first `validateFile` call does not return until ``release()``: an attempt
/// stuck after its transport returned, in the library's own hands.
final class StuckValidation: DownloaderDelegate, Sendable {
    private let calls = Mutex(0)
    private let gate = Gate()

    func validateFile(at url: URL, id: String) async -> Bool {
        if calls.withLock({ $0 += 1; return $0 }) == 1 { await gate.park() }
        return true
    }

    /// Returns once the first validation is stuck.
    func waitUntilStuck() async { await gate.waitForArrival() }

    /// Lets the stuck validation return.
    func release() { gate.release() }
}
