import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` waits out a full disk, says so in words, and completes by itself when there is room
/// (fdl as a process; the tmpfs needs root, as in CI).
@Suite("fdl waits for space", .serialized, .timeLimit(.minutes(2)))
struct FDLWaitTests {
    @Test("a file larger than the free space: fdl says it waits for space, and completes when the file system grows")
    func waitsForSpace() async throws {
        try await NginxServer.withServer { server, _ in
            let data = try server.serve("big.bin", sampleBytes(24 << 20))
            let tmpfs = try TmpfsMount(size: "16m")
            defer { tmpfs.unmount() }
            let fdl = try FDLProcess(["get", server.url("big.bin"), "-d", tmpfs.url.path])
            try await fdl.waitForOutput(containing: "waiting for space")
            #expect((try? FileManager.default.attributesOfItem(atPath: tmpfs.path("big.bin.part"))[.size] as? Int) ?? 0 <= 16 << 20)
            try tmpfs.resize(to: "64m")
            let status = await fdl.exitStatus()
            #expect(status == 0, "\(fdl.stdout) \(fdl.stderr)")
            #expect(try Data(contentsOf: tmpfs.url.appending(path: "big.bin")) == data)
        }
    }
}
