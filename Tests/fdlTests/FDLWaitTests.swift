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

/// `fdl get` waits out a network that went away (the host's end of the link taken down, or the
/// route to the server removed; fdl as a process; the server in a network namespace needs root and iproute2, as in CI), says so in
/// words, and completes by itself when the way is back: no failure, no retry used up.
@Suite("fdl waits for the network", .serialized, .timeLimit(.minutes(2)))
struct FDLNetworkWaitTests {
    @Test("the way to the server cut for longer than the retries last: fdl says it waits for the network and completes when the way is back",
          arguments: ["link", "route"])
    func waitsForTheNetwork(cut: String) async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let served = work.url.appending(path: "www")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let data = sampleBytes(3 << 20)
        try data.write(to: served.appending(path: "net.bin"))
        let server = try await FileDownloadTestSupport.NginxServer(root: served, bytesPerSecond: 512 << 10, in: namespace)
        defer { server.stop() }
        let fdl = try FDLProcess(["get", server.baseURL.appending(path: "net.bin").absoluteString, "-d", work.path("out"),
                                  "--timeout", "2", "--retry", "1", "--retry-wait", "0.2"])
        try await fdl.waitForOutput(containing: "net.bin")
        if cut == "link" { try namespace.setLink(up: false) } else { try namespace.setRoute(present: false) }
        try await fdl.waitForOutput(containing: "waiting for the network")
        // Longer than one retry with its wait (the retries would be used up by now).
        try await Task.sleep(for: .seconds(4))
        if cut == "link" { try namespace.setLink(up: true) } else { try namespace.setRoute(present: true) }
        let status = await fdl.exitStatus()
        #expect(status == 0, "\(fdl.stdout) \(fdl.stderr)")
        #expect(try Data(contentsOf: work.url.appending(path: "out/net.bin")) == data)
        #expect(!fdl.stdout.contains("FAILED"), "\(fdl.stdout)")
        print("fdl, \(cut) cut:\n\(fdl.stdout)")
    }

    @Test("a refused connection is the server's failure: fdl fails after its retries, never waits for the network")
    func refusedFails() async throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let fdl = try FDLProcess(["get", "http://127.0.0.1:1/x", "-d", work.path("out"), "--retry", "2", "--retry-wait", "0.1"])
        let status = await fdl.exitStatus()
        #expect(status != 0)
        #expect(fdl.stdout.contains("FAILED (connectionFailed)"), "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.components(separatedBy: "retrying in").count - 1 == 2, "two retries: \(fdl.stdout)")
        #expect(!fdl.stdout.contains("waiting for the network"))
    }
}
