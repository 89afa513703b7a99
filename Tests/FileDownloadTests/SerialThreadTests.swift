import FileDownload
import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing

/// `SerialThread` (the thread of one SSH session, of the SQLite store): jobs run in order, and a
/// thread that has ended refuses a job instead of dropping it with its awaiter left hanging.
@Suite("SerialThread", .timeLimit(.minutes(1)))
struct SerialThreadTests {
    @Test("jobs run in the order submitted, also those submitted between stop() and the end")
    func order() async throws {
        let thread = SerialThread(name: "order")
        let ran = Mutex<[Int]>([])
        for i in 0..<100 { #expect(thread.submit { ran.withLock { $0.append(i) } }) }
        thread.stop()
        try await poll("the thread ended") { thread.hasEnded }
        #expect(ran.withLock { $0 } == Array(0..<100))
    }

    @Test("a job submitted after the thread ended is refused (false) and never runs")
    func refusedAfterTheEnd() async throws {
        let thread = SerialThread(name: "ended")
        let ran = Mutex<[String]>([])
        thread.stop()
        try await poll("the thread ended") { thread.hasEnded }
        #expect(!thread.submit { ran.withLock { $0.append("late") } })
        #expect(ran.withLock { $0 }.isEmpty)
    }
}
