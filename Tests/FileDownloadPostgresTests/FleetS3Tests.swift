import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `s3://` in the fleet: `fdl add` queues it (no key in the queue), and an `fdl worker` signs
/// with the keys of its own environment.
@Suite("fleet: s3:// URLs", .timeLimit(.minutes(10)))
struct FleetS3Tests {
    @Test("a queued s3:// download is fetched byte-exact by a worker with the keys in its environment; the queue holds no key")
    func workerSignsWithItsEnvironment() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let server = try S3Server()
        defer { server.stop() }
        let out = try TemporaryDirectory("fleet-s3")
        defer { out.remove() }
        let data = sampleBytes(700_000, seed: 71)
        try server.put(data, bucket: "fdl", key: "fleet/file.bin")
        let added = try await FDLProcess.run(["add", "--postgres", postgres.url, "s3://fdl/fleet/file.bin"],
                                             environment: ["PGPASSWORD": postgres.password])
        #expect(added.status == 0, "stdout: \(added.stdout) stderr: \(added.stderr)")
        var environment: [String: String?] = ["PGPASSWORD": postgres.password, "AWS_PROFILE": nil, "AWS_SESSION_TOKEN": nil]
        for (name, value) in server.environment() { environment[name] = value }
        let worker = try FDLProcess(["worker", "--postgres", postgres.url, "-d", out.path("files"), "--node", "s3",
                                     "--poll", "0.2"], environment: environment)
        try await worker.waitForOutput(containing: "fdl worker: claiming from")
        try await poll("the s3:// download completed", limit: .seconds(240), interval: .milliseconds(200)) {
            if !worker.process.isRunning { return true }
            return (try? postgres.psql("SELECT count(*) FROM downloads WHERE state = 'completed'")) == "1"
        }
        worker.send(SIGTERM)
        #expect(await worker.exitStatus() == 0, "worker: \(worker.stderr)")
        #expect(try Data(contentsOf: out.file("files/file.bin")) == data)
        let rows = try postgres.psql("SELECT row_to_json(downloads)::text FROM downloads")
        #expect(!rows.contains(server.secretAccessKey) && !rows.contains(server.accessKeyID), "\(rows)")
    }
}
