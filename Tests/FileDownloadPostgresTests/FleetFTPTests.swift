import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `ftp://` in the fleet: `fdl add` queues it and an `fdl worker` fetches it from vsftpd.
@Suite("fleet: ftp:// URLs", .timeLimit(.minutes(10)))
struct FleetFTPTests {
    @Test("a queued ftp:// download is fetched byte-exact by a worker")
    func workerFetchesFromVsftpd() async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        let server = try VsftpdServer()
        defer { server.stop() }
        let out = try TemporaryDirectory("fleet-ftp")
        defer { out.remove() }
        let data = try server.serve("fleet/file.bin", sampleBytes(700_000, seed: 72))
        let added = try await FDLProcess.run(["add", "--postgres", postgres.url, server.url("fleet/file.bin").absoluteString],
                                             environment: ["PGPASSWORD": postgres.password])
        #expect(added.status == 0, "stdout: \(added.stdout) stderr: \(added.stderr)")
        let worker = try FDLProcess(["worker", "--postgres", postgres.url, "-d", out.path("files"), "--node", "ftp",
                                     "--poll", "0.2"], environment: ["PGPASSWORD": postgres.password])
        try await worker.waitForOutput(containing: "fdl worker: claiming from")
        try await poll("the ftp:// download completed", limit: .seconds(240), interval: .milliseconds(200)) {
            if !worker.process.isRunning { return true }
            return (try? postgres.psql("SELECT count(*) FROM downloads WHERE state = 'completed'")) == "1"
        }
        worker.send(SIGTERM)
        #expect(await worker.exitStatus() == 0, "worker: \(worker.stderr)")
        #expect(try Data(contentsOf: out.file("files/file.bin")) == data)
    }
}
