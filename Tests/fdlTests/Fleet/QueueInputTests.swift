@testable import FileDownloadPostgres
import Testing

/// What the queue module refuses or hides before anything reaches PostgreSQL or the disk.
@Suite struct QueueInputTests {
    @Test func theWorkersLockFileIsNotADestination() {
        #expect(QueuedDownload.problem(destination: DirectoryLock.fileName)?.contains("lock file") == true)
        #expect(QueuedDownload.problem(destination: "sub/\(DirectoryLock.fileName)") == nil)
        #expect(QueuedDownload.problem(destination: "data.bin") == nil)
    }

    @Test func settingsPrintWithoutThePassword() {
        let settings = PostgresQueueSettings(host: "db.example", username: "fdl", database: "queue", password: "s3cret-pw")
        #expect("\(settings)" == "fdl@db.example:5432/queue")
        #expect(!String(describing: settings).contains("s3cret-pw"))
        #expect(!String(reflecting: settings).contains("s3cret-pw"))
    }
}
