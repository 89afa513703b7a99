import FileDownload
@testable import FileDownloadPostgres
import Testing

/// What the queue module refuses or hides before anything reaches PostgreSQL or the disk.
@Suite struct QueueInputTests {
    @Test func theWorkersLockFileIsNotADestination() {
        #expect(QueuedDownload.problem(destination: DirectoryLock.fileName)?.contains("lock file") == true)
        #expect(QueuedDownload.problem(destination: "sub/\(DirectoryLock.fileName)")?.contains("starts with a dot") == true)
        #expect(QueuedDownload.problem(destination: "data.bin") == nil)
    }

    @Test func aQueuedIdLeavesRoomForTheClaimNumberAWorkerAdds() throws {
        let longest = String(repeating: "x", count: QueuedDownload.maximumIdentifierLength)
        try QueuedDownload.checkIdentifierRoom(longest)
        // The worker's local id for the longest id and the largest claim number passes the rule
        // every Downloader applies, so a claim of it cannot fail at add.
        try InputValidation.checkIdentifier(LocalID(queueID: longest, claim: Int.max).rawValue)
        #expect(throws: DownloadError.self) { try QueuedDownload.checkIdentifierRoom(longest + "x") }
    }

    @Test func settingsPrintWithoutThePassword() {
        let settings = PostgresQueueSettings(host: "db.example", username: "fdl", database: "queue", password: "s3cret-pw")
        #expect("\(settings)" == "fdl@db.example:5432/queue")
        #expect(!String(describing: settings).contains("s3cret-pw"))
        #expect(!String(reflecting: settings).contains("s3cret-pw"))
    }

    @Test func aRefusedWriteAfterARetrySaysTheEarlierTryMayHaveLanded() {
        // A final save whose answer was lost at its deadline may have committed and released the
        // lease: its retry is refused, and the log must not read as if the row were wrong.
        let plain = LeasedStore.leaseLost("q1", afterRetry: false).message
        let retried = LeasedStore.leaseLost("q1", afterRetry: true).message
        #expect(plain.contains("'q1' is gone") && !plain.contains("may have been applied"))
        #expect(retried.contains("'q1' is gone") && retried.contains("may have been applied"))
    }
}
