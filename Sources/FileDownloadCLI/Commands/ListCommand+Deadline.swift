import Foundation
import Synchronization

extension ListCommand {
    /// How long `fdl list` waits for the answer of the `fdl get` running on DIR before it shows
    /// the stored rows instead.
    static let runningAnswerDeadline: Duration = .seconds(2)

    /// `body`'s value, or `nil` when it has not returned within `deadline`: then `body`'s task is
    /// cancelled and left to end on its own (the caller does not wait for it). An error `body`
    /// throws before the deadline is rethrown.
    static func value<T: Sendable>(within deadline: Duration,
                                   _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
            let pending = PendingAnswer(continuation)
            let work = Task {
                do { pending.resume(with: .success(try await body())) } catch { pending.resume(with: .failure(error)) }
            }
            Task {
                try? await Task.sleep(for: deadline)
                work.cancel()
                pending.resume(with: .success(nil))
            }
        }
    }

    /// A continuation resumed by the first of its callers; the others do nothing.
    final class PendingAnswer<T: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<T?, any Error>?>

        init(_ continuation: CheckedContinuation<T?, any Error>) {
            self.continuation = Mutex(continuation)
        }

        func resume(with result: Result<T?, any Error>) {
            continuation.withLock { $0.take() }?.resume(with: result)
        }
    }
}
