import FileDownloadTestSupport
import Foundation
import Testing

/// Rows of the shared queue changed by someone else than a worker (an operator with psql, another
/// program): a worker keeps going and never overwrites what they decided.
@Suite(.serialized) struct FleetQueueRowTests {
    @Test func anUnreadableRowIsFailedWithAMessageAndTheOthersComplete() async throws {
        try await FleetTestbed.with { bed in
            let files = try bed.serveFiles(6)
            try await bed.queue(files)
            try bed.postgres.psql("UPDATE downloads SET record = '{\"bogus\": 1}' WHERE destination = 'f00002.bin'")
            try bed.postgres.psql("UPDATE downloads SET record = '\"text\"' WHERE destination = 'f00004.bin'")
            let worker = try await bed.startWorker("w1", jobs: 8)
            try await bed.awaitCompleted(4, limit: .seconds(120), workers: [worker])
            try await poll("the bad rows failed", limit: .seconds(60), interval: .milliseconds(100)) {
                (try? bed.count("failed")) == 2
            }
            await bed.stop([worker])
            let messages = try bed.postgres.psql(
                "SELECT destination || ': ' || (record->'errorMessages'->>0) FROM downloads WHERE state = 'failed' ORDER BY destination")
            #expect(messages.contains("f00002.bin: the queue's record of download") && messages.contains("cannot be read"), "\(messages)")
            #expect(messages.contains("f00004.bin: the queue's record of download"), "\(messages)")
            #expect(try bed.postgres.psql("SELECT count(*) FROM downloads WHERE lease_owner IS NOT NULL") == "0")
            var good = files
            good["f00002.bin"] = nil
            good["f00004.bin"] = nil
            try bed.expectDelivered(good)
        }
    }

    @Test func anOperatorsCancelOfAClaimedDownloadStands() async throws {
        try await FleetTestbed.with(slowRate: "64k") { bed in
            // 6 files of 192 KiB at 64 KiB/s: 3 s each, 2 at a time.
            let files = try bed.serveFiles(6, prefix: "slow", size: { 192 * 1024 + $0 })
            try await bed.queue(files, prefix: "slow")
            let worker = try await bed.startWorker("w1", jobs: 2, lease: 3)
            var victim = ""
            try await poll("a download is claimed and has written bytes", limit: .seconds(60), interval: .milliseconds(50)) {
                victim = (try? bed.postgres.psql(
                    "SELECT id FROM downloads WHERE state = 'claimed' AND checkpointed_bytes > 0 ORDER BY id LIMIT 1")) ?? ""
                return !victim.isEmpty
            }
            try bed.postgres.psql("UPDATE downloads SET state = 'cancelled' WHERE id = '\(victim)'")
            try await bed.awaitCompleted(5, limit: .seconds(120), workers: [worker])
            await bed.stop([worker])
            #expect(try bed.postgres.psql("SELECT state FROM downloads WHERE id = '\(victim)'") == "cancelled")
        }
    }
}
