import FileDownloadTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The launcher every server of the tests starts through: a port taken between choosing it and
/// binding it must cost a retry on a new port, never a failed run or a test talking to the wrong
/// server.
@Suite("LoopbackLaunch")
struct LoopbackLaunchTests {
    /// A server that listens on the port it is given and waits; it exits when the port is taken.
    static let listener = """
        import socket, sys, time
        s = socket.socket()
        s.bind(("127.0.0.1", int(sys.argv[1])))
        s.listen()
        print("listening", flush=True)
        time.sleep(60)
        """

    @Test("a port another process took before the server bound it: the launch retries on a new one")
    func portTakenBeforeBind() throws {
        // Another program holds a listening socket on `taken`: connections to it succeed, so a
        // launch that only waited for the port to accept would take that program for the server.
        let thief = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(thief) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(thief, $0, length) == 0 && listen(thief, 1) == 0 && getsockname(thief, $0, &length) == 0
            }
        }
        try #require(listening)
        let taken = Int(UInt16(bigEndian: address.sin_port))

        let directory = try TemporaryDirectory()
        let starts = Mutex<[Int]>([])
        let launched = try LoopbackLaunch.startBlocking("python3 listener") { ports in
            // The first start is handed the stolen port, as if it had been taken in between.
            let port = starts.withLock { $0.isEmpty ? taken : ports[0] }
            starts.withLock { $0.append(port) }
            let server = try ChildProcess("/usr/bin/python3", ["-c", Self.listener, String(port)],
                                          error: .file(directory.path("stderr-\(port)")))
            return (server, LoopbackLaunch.Watch(server, diagnostics: {
                (try? String(contentsOfFile: directory.path("stderr-\(port)"), encoding: .utf8)) ?? ""
            }))
        }
        defer { launched.server.kill() }
        let tried = starts.withLock { $0 }
        #expect(tried.count == 2)
        #expect(tried.first == taken)
        #expect(launched.ports == [tried[1]])
        #expect(launched.ports[0] != taken)
        #expect(LoopbackLaunch.isListening(pid: launched.server.processIdentifier, port: launched.ports[0]))
        #expect(!LoopbackLaunch.isListening(pid: launched.server.processIdentifier, port: taken))
    }

}
