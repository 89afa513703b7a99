import FileDownload
@testable import FileDownloadSFTP
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// A transfer handed a session that was closed meanwhile (its thread ended) fails at once with a
/// retryable `connectionLost` instead of waiting for a job that will never run.
@Suite("IOJob on a closed session", .timeLimit(.minutes(1)))
struct IOJobTests {
    @Test("a job for a session whose thread ended throws connectionLost, retryable, at once")
    func closedSession() async throws {
        let thread = SerialThread(name: "closed")
        thread.stop()
        try await poll("the thread ended") { thread.hasEnded }
        let outcome = Mutex<Result<Int, any Error>?>(nil)
        // Not awaited directly: were the job lost, the wait would never end (not even when
        // cancelled); the poll below bounds it instead.
        Task {
            let result: Result<Int, any Error>
            do {
                result = .success(try await IOJob.run(on: thread, idleTimeout: .seconds(30), totalTimeout: .seconds(30),
                                                      authenticate: { _ in .reject }) { _ in 1 })
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
        }
        try await poll("the transfer on the closed session ended") { outcome.withLock { $0 != nil } }
        let error = try #require(outcome.withLock { $0 }.flatMap { result -> DownloadError? in
            if case .failure(let error) = result { error as? DownloadError } else { nil }
        })
        #expect(error.code == .connectionLost && error.isRetryable)
    }
}
