import FileDownload
import Synchronization

/// Waits for a call to PostgreSQL for at most a given time, whether or not the call ever returns.
///
/// Closing the connection when a statement takes too long is meant to make postgres-nio fail the
/// statement, and it usually does; but a statement in flight while the server shut down was seen
/// to wait for ever even after its connection closed (a worker then held its downloads, renewed
/// their leases and never finished them, and could not stop). So the caller does not wait for the
/// call itself: the call runs in a task of its own, and at the deadline
/// ``run(within:what:_:onExpiry:)`` runs `onExpiry` (which closes the connection) and throws,
/// leaving that task to end when it can.
enum AnswerDeadline {
    /// Runs `work` and returns what it returns, or throws what it throws, if it ends within
    /// `limit`. Otherwise runs `onExpiry`, then throws a retryable `DownloadError` (code `store`)
    /// saying that `what` got no answer within `limit`.
    ///
    /// Cancelling the caller changes nothing (as with postgres-nio's statements themselves): a
    /// statement that was sent is waited for, up to `limit`, so that a worker being stopped still
    /// gives its leases back.
    static func run<T: Sendable>(within limit: Duration, what: String,
                                 _ work: @escaping @Sendable () async throws -> T,
                                 onExpiry: @escaping @Sendable () async -> Void) async throws -> T {
        let answer = Answer<T>()
        // Unstructured, so neither inherits the caller's cancellation.
        Task {
            do { answer.settle(.success(try await work())) } catch { answer.settle(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            await onExpiry()
            answer.settle(.failure(DownloadError(.store, "\(what): no answer within \(limit)", isRetryable: true)))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { answer.wait(with: $0) }
    }

    /// The first of the work's end and the deadline, handed to the one waiter
    /// whether it comes before or after.
    private final class Answer<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, any Error>?
            var waiter: CheckedContinuation<T, any Error>?
        }
        private let state = Mutex(State())

        func settle(_ result: Result<T, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                return state.waiter.take()
            }
            waiter?.resume(with: result)
        }

        func wait(with continuation: CheckedContinuation<T, any Error>) {
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
