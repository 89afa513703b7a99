import FileDownload
@testable import FileDownloadPostgres
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// Every wait for PostgreSQL ends: a call that never returns is given up at its deadline (the
/// connection closed first), whatever postgres-nio does with it.
@Suite(.timeLimit(.minutes(1))) struct AnswerDeadlineTests {
    @Test func anAnswerWithinTheDeadlineIsReturnedAndNothingIsClosed() async throws {
        let expired = Mutex(false)
        let value = try await AnswerDeadline.run(within: .seconds(600), what: "counting") { 42 } onExpiry: {
            expired.withLock { $0 = true }
        }
        #expect(value == 42)
        await #expect(throws: DownloadError.self) {
            try await AnswerDeadline.run(within: .seconds(600), what: "counting") { () async throws -> Int in
                throw DownloadError(.store, "refused", isRetryable: false)
            } onExpiry: {}
        }
        #expect(!expired.withLock { $0 })
    }

    @Test func aCallThatNeverReturnsIsGivenUpAfterClosing() async throws {
        let (never, release) = AsyncStream<Void>.makeStream()
        defer { release.finish() }  // lets the abandoned call end with the test
        let expired = Mutex(false)
        do {
            _ = try await AnswerDeadline.run(within: .milliseconds(50), what: "PostgreSQL at q: saving") { () async throws -> Int in
                for await _ in never {}
                return 1
            } onExpiry: {
                expired.withLock { $0 = true }
            }
            Issue.record("a call that never returns was waited for")
        } catch let error as DownloadError {
            #expect(error.code == .store && error.isRetryable)
            #expect(error.message.contains("PostgreSQL at q: saving: no answer within"), "\(error.message)")
        }
        #expect(expired.withLock { $0 }, "the connection was not closed first")
    }

    @Test func aCancelledCallerStillGetsTheAnswerOrTheDeadline() async throws {
        // A worker being stopped (its task cancelled) must still give its leases back: the
        // statement it sends is not cut short by the cancellation.
        let answered = Task {
            try await AnswerDeadline.run(within: .seconds(600), what: "releasing") { () async throws -> Int in
                try await Task.sleep(for: .milliseconds(1))  // throws if the caller's cancellation reached it
                return 7
            } onExpiry: {}
        }
        answered.cancel()
        #expect(try await answered.value == 7)
        let (never, release) = AsyncStream<Void>.makeStream()
        defer { release.finish() }
        let unanswered = Task {
            try await AnswerDeadline.run(within: .milliseconds(50), what: "releasing") { () async throws -> Int in
                for await _ in never {}
                return 1
            } onExpiry: {}
        }
        unanswered.cancel()
        await #expect(throws: DownloadError.self) { try await unanswered.value }
    }

    @Test func aServerThatAcceptsAndNeverAnswersIsARetryableErrorNotAHang() async throws {
        let silent = try SilentPort()
        let queue = PostgresDownloadQueue(
            settings: PostgresQueueSettings(host: "127.0.0.1", port: silent.port, username: "fdl", database: "db", password: "x"),
            queryTimeout: .milliseconds(500))
        for _ in 0..<2 {  // and again: the next call connects anew, and is bounded too
            do {
                try await queue.prepare()
                Issue.record("prepared against a server that never answers")
            } catch let error as DownloadError {
                #expect(error.code == .store && error.isRetryable, "\(error.message)")
                // Our bound, not only the library's connect timeout.
                #expect(error.message.contains("127.0.0.1:\(silent.port)") && error.message.contains("no answer within"), "\(error.message)")
            }
        }
        await queue.close()
        withExtendedLifetime(silent) {}
    }
}
