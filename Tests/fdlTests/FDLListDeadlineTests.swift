import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `fdl list -d DIR` asks the `fdl get` running on DIR over its socket; one that never answers
/// does not keep it waiting.
@Suite struct FDLListDeadlineTests {
    @Test("a socket that accepts and never answers: fdl list shows the stored rows with a note, within its bound")
    func aSilentRunDoesNotHangList() async throws {
        try await NginxServer.withServer { server, out in
            try server.serve("s.bin", sampleBytes(10_000, seed: 51))
            let get = try await FDLProcess.run(["get", server.url("s.bin"), "-d", out.path])
            #expect(get.status == 0, "stderr: \(get.stderr)")

            let listener = try Self.listen(at: out.path(".fdl/fdl.sock"))
            defer { close(listener) }
            let list = try await Task { try await FDLProcess.run(["list", "-d", out.path]) }
                .value(within: 20, what: "fdl list to return")
            #expect(list.status == 0, "stderr: \(list.stderr)")
            #expect(list.stdout.contains("s.bin"), "the stored row: \(list.stdout)")
            #expect(list.stderr.contains("did not answer within 2 s; showing the stored rows"), "stderr: \(list.stderr)")
        }
    }

    /// A Unix socket listening at `path` that never accepts: the kernel completes connections into
    /// its backlog, so a client connects and then waits for an answer that never comes.
    static func listen(at path: String) throws -> Int32 {
        unlink(path)  // a socket file a finished run left
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            close(fd)
            throw TestFailure("bind/listen \(path): \(errno)")
        }
        return fd
    }
}
