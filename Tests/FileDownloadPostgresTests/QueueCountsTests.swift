import FileDownloadPostgres
import FileDownloadTestSupport
import Foundation
import Testing

/// `PostgresDownloadQueue.counts()`: what an operator's dashboard shows of a shared queue.
@Suite struct QueueCountsTests {
    @Test func eachStateIsCountedAndALapsedClaimCountsAsQueued() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let queue = PostgresDownloadQueue(settings: try PostgresQueueSettings(url: URL(string: postgres.url)!, password: postgres.password))
        #expect(try await queue.counts() == QueueCounts())
        try await queue.add((1...6).map { QueuedDownload(url: URL(string: "http://127.0.0.1:9/f\($0).bin")!) })
        try postgres.psql("""
            UPDATE downloads SET state = 'completed' WHERE id = 'f1.bin';
            UPDATE downloads SET state = 'failed' WHERE id = 'f2.bin';
            UPDATE downloads SET state = 'cancelled' WHERE id = 'f3.bin';
            UPDATE downloads SET state = 'claimed', lease_owner = 'w', lease_expires_at = now() + interval '1 hour' WHERE id = 'f4.bin';
            UPDATE downloads SET state = 'claimed', lease_owner = 'w', lease_expires_at = now() - interval '1 second' WHERE id = 'f5.bin';
            """)
        let counts = try await queue.counts()
        #expect(counts == QueueCounts(queued: 2, claimed: 1, completed: 1, failed: 1, cancelled: 1))
        #expect(counts.unfinished == 3)
        await queue.close()
    }
}
