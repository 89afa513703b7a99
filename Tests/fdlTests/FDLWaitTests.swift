import FileDownloadTestSupport
import Foundation
import Testing

/// `fdl get` waits out a full disk and a network that is down, says so in words, and completes by
/// itself when the world comes back (fdl as a process; tmpfs and network namespaces need root, as
/// in CI).
@Suite("fdl waits for space and for the network", .serialized, .timeLimit(.minutes(2)))
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

    @Test("the way to the server is down: fdl says it waits for the network, and completes when the link comes back")
    func waitsForNetwork() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let work = try TemporaryDirectory("fdl-netns")
        defer { work.remove() }
        let served = work.url.appending(path: "www")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let data = sampleBytes(2 << 20)
        try data.write(to: served.appending(path: "f.bin"))
        let server = try await FileDownloadTestSupport.NginxServer(root: served, bytesPerSecond: 8 << 20, in: namespace)
        defer { server.stop() }
        try namespace.setLink(up: false)
        let fdl = try FDLProcess(["get", server.baseURL.appending(path: "f.bin").absoluteString, "-d", work.path])
        try await fdl.waitForOutput(containing: "waiting for the network")
        try namespace.setLink(up: true)
        let status = await fdl.exitStatus()
        #expect(status == 0, "\(fdl.stdout) \(fdl.stderr)")
        #expect(try Data(contentsOf: work.url.appending(path: "f.bin")) == data)
    }
}
