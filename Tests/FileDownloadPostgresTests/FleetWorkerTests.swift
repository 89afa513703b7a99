import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl worker --postgres` and `fdl add --postgres` against a real PostgreSQL and nginx: several
/// worker processes share one queue (docs/fleet.md).
@Suite(.serialized) struct FleetWorkerTests {
    @Test func threeWorkersShareTwoThousandFilesEachExactlyOnce() async throws {
        try await FleetTestbed.with { bed in
            let files = try bed.serveFiles(2_000)
            // All three claim before anything is queued: on a busy machine the first two could
            // otherwise finish every file before the third one starts.
            var workers: [FDLProcess] = []
            for node in ["w1", "w2", "w3"] { workers.append(try await bed.startWorker(node)) }
            try await bed.queue(files)
            #expect(try bed.postgres.psql("SELECT count(*) FROM downloads") == "2000")
            try await bed.awaitCompleted(2_000, workers: workers)
            await bed.stop(workers)
            try bed.expectDelivered(files)
            let fetches = bed.fetches()
            #expect(fetches.count == 2_000, "\(fetches.count) requests for 2,000 files")
            bed.expectNoOverlappingFetches()
            // Every worker took a share, and none left a lease behind.
            let byNode = try bed.postgres.psql("SELECT node || '=' || count(*) FROM downloads GROUP BY node ORDER BY node")
            let shares = byNode.split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
            #expect(shares.count == 3 && shares.allSatisfy { $0 > 0 } && shares.reduce(0, +) == 2_000, "\(byNode)")
            #expect(try bed.postgres.psql("SELECT count(*) FROM downloads WHERE lease_owner IS NOT NULL") == "0")
        }
    }

    @Test func aKilledWorkersDownloadsAreReclaimedAfterTheLeaseAndCompleted() async throws {
        try await FleetTestbed.with(slowRate: "64k") { bed in
            // 40 files of 96 KiB at 64 KiB/s: a worker with 4 places needs about 15 s for them.
            let files = try bed.serveFiles(40, prefix: "slow", size: { 96 * 1024 + $0 })
            try await bed.queue(files, prefix: "slow")
            let first = try await bed.startWorker("first", jobs: 4, lease: 3)
            try await poll("the first worker completed some and holds others", limit: .seconds(120), interval: .milliseconds(50)) {
                ((try? bed.count("completed")) ?? 0) >= 4
            }
            first.send(SIGKILL)
            _ = await first.exitStatus()
            let orphaned = try bed.postgres.psql("SELECT id FROM downloads WHERE state = 'claimed' ORDER BY id")
                .split(separator: "\n").map(String.init)
            #expect(!orphaned.isEmpty, "the killed worker held nothing")
            let second = try await bed.startWorker("second", jobs: 4, lease: 3)
            try await bed.awaitCompleted(40, limit: .seconds(150), workers: [second])
            await bed.stop([second])
            try bed.expectDelivered(files)
            bed.expectNoOverlappingFetches(prefix: "slow")
            // The orphans were finished by the second worker.
            let finisher = try bed.postgres.psql(
                "SELECT DISTINCT node FROM downloads WHERE id IN (\(orphaned.map { "'\($0)'" }.joined(separator: ",")))")
            #expect(finisher == "second", "\(finisher)")
            #expect(try bed.postgres.psql("SELECT min(claims) FROM downloads WHERE id IN (\(orphaned.map { "'\($0)'" }.joined(separator: ",")))") == "2")
        }
    }

    @Test func workersReconnectWhenPostgreSQLRestartsAndLoseNothing() async throws {
        try await FleetTestbed.with { bed in
            let files = try bed.serveFiles(600)
            try await bed.queue(files)
            let workers = [try await bed.startWorker("w1", jobs: 4), try await bed.startWorker("w2", jobs: 4)]
            try await poll("a hundred completed", limit: .seconds(120), interval: .milliseconds(20)) {
                ((try? bed.count("completed")) ?? 0) >= 100
            }
            // Read before the restart: the workers go on completing while PostgreSQL comes back.
            let completedBefore = try bed.count("completed")
            try await bed.postgres.restart()
            #expect(completedBefore < 600, "the run was over before the restart")
            try await bed.awaitCompleted(600, limit: .seconds(240), workers: workers)
            await bed.stop(workers)
            try bed.expectDelivered(files)
            bed.expectNoOverlappingFetches()
            #expect(workers.contains { $0.stderr.contains("trying again") }, "no worker noticed the restart")
        }
    }

    @Test func aFrozenWorkerStopsItsDownloadsAndAnotherCompletesThem() async throws {
        try await FleetTestbed.with(slowRate: "64k") { bed in
            // 24 files of 96 KiB at 64 KiB/s; each worker has its own directory (not shared).
            let files = try bed.serveFiles(24, prefix: "slow", size: { 96 * 1024 + $0 })
            try await bed.queue(files, prefix: "slow")
            let first = try await bed.startWorker("first", jobs: 4, lease: 3, directory: "first", shared: false)
            try await poll("the first worker completed some and holds others", limit: .seconds(120), interval: .milliseconds(50)) {
                ((try? bed.count("completed")) ?? 0) >= 4 && ((try? bed.count("claimed")) ?? 0) > 0
            }
            first.send(SIGSTOP)
            let frozen = try bed.postgres.psql("SELECT id FROM downloads WHERE state = 'claimed' ORDER BY id").split(separator: "\n").map { "'\($0)'" }
            let second = try await bed.startWorker("second", jobs: 4, lease: 3, directory: "second", shared: false)
            // The frozen worker's leases lapsed: the second one holds its downloads now.
            try await poll("the second worker took over", limit: .seconds(120), interval: .milliseconds(50)) {
                (try? bed.postgres.psql("SELECT count(*) FROM downloads WHERE id IN (\(frozen.joined(separator: ","))) AND claims >= 2")) == "\(frozen.count)"
            }
            first.send(SIGCONT)
            try await poll("the first worker stopped its downloads", limit: .seconds(60), interval: .milliseconds(50)) {
                first.stderr.contains("stops a download")
            }
            try await bed.awaitCompleted(24, limit: .seconds(150), workers: [first, second])
            await bed.stop([first, second])
            // Every file, byte for byte, in the directory of the worker the queue says completed it.
            // (A transfer of the frozen worker that ends right after SIGCONT asks the queue before
            // its move and keeps the file in staging (LeaseFenceTests); one frozen in the instant
            // between that answer and its rename still puts a copy in its own directory: the window
            // docs/fleet.md "Limits" describes. Such a copy must be byte-exact too.)
            var seen: [String: Data] = [:]
            for directory in ["first", "second"] {
                let path = bed.out.path(directory)
                let completedHere = Set(try bed.postgres.psql("SELECT destination FROM downloads WHERE state = 'completed' AND node = '\(directory)'")
                    .split(separator: "\n").map(String.init))
                for name in try FileManager.default.contentsOfDirectory(atPath: path) where !name.hasPrefix(".fdl-worker") {
                    let data = try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
                    #expect(data == files[name], "\(directory)/\(name) is not byte-exact")
                    if completedHere.contains(name) { seen[name] = data }
                }
            }
            #expect(seen == files, "missing: \(Set(files.keys).subtracting(seen.keys).sorted()), extra: \(Set(seen.keys).subtracting(files.keys).sorted())")
            let completedByFirst = try bed.postgres.psql("SELECT count(*) FROM downloads WHERE id IN (\(frozen.joined(separator: ","))) AND node = 'first'")
            #expect(completedByFirst == "0", "the frozen worker finished downloads it had lost")
        }
    }
}
