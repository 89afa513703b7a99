import FileDownload
import Foundation
import Synchronization

/// A delegate whose file validation holds every download until `count` of them got there, then
/// lets them all go on together: their completions (name choice and move) then run at once.
final class CompletionBarrier: DownloaderDelegate {
    private let state: Mutex<(arrived: Int, waiting: [CheckedContinuation<Void, Never>])>
    private let count: Int

    init(count: Int) {
        self.count = count
        state = Mutex((0, []))
    }

    func validateFile(at file: URL, id: String) async -> Bool {
        await withCheckedContinuation { continuation in
            let release = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.arrived += 1
                s.waiting.append(continuation)
                guard s.arrived >= count else { return [] }
                defer { s.waiting = [] }
                return s.waiting
            }
            for waiter in release { waiter.resume() }
        }
        return true
    }
}
