import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a failure means to `fdl get` as a process (docs/states.md, "What a failure means"): a
/// server that connected and went silent is a timeout that uses `--retry`; a connection not made
/// in time counts too; `--max-time` counts the waits between attempts; a mistyped host fails at
/// once where a resolver answers "no such name"; a foreground run waits for the network at most
/// `--max-network-wait` and says so. Every run is bounded: a run that outlives its bound is
/// killed and the test fails (the old behaviour waited for the network for ever).
@Suite("fdl: what a failure means", .serialized, .timeLimit(.minutes(3)))
struct FDLFailureTests {
    /// Far above what each run needs (a few seconds), far below "for ever".
    static let bound: Duration = .seconds(60)

    /// The exit status of `fdl`, or `nil` (and `fdl` killed) when it still runs after ``bound``.
    func status(_ fdl: FDLProcess) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await fdl.exitStatus() }
            group.addTask {
                try? await Task.sleep(for: Self.bound)
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil { fdl.send(SIGKILL) }
            group.cancelAll()
            return first
        }
    }

    func retries(_ output: String) -> Int { output.components(separatedBy: "retrying in").count - 1 }

    @Test("`--timeout 2 --retry 1` against a server that connected and went silent: two attempts, then FAILED (timedOut); never a wait for the network")
    func silentServerUsesTheRetries() async throws {
        let silent = try SilentPort()
        let out = try TemporaryDirectory()
        defer { out.remove() }
        let fdl = try FDLProcess(["get", "http://127.0.0.1:\(silent.port)/x", "-d", out.path, "--timeout", "2", "--retry", "1"])
        let status = await status(fdl)
        #expect(status == 1, "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.contains("x: FAILED (timedOut)"), "\(fdl.stdout)")
        #expect(retries(fdl.stdout) == 1, "\(fdl.stdout)")
        #expect(!fdl.stdout.contains("waiting for the network"), "\(fdl.stdout)")
    }

    @Test("`--connect-timeout 2 --retry 0 --max-time 5` against a server that never answers the connection: FAILED at once after the connect timeout")
    func connectTimeoutCounts() async throws {
        let deaf = try DeafPort()
        let out = try TemporaryDirectory()
        defer { out.remove() }
        let fdl = try FDLProcess(["get", "http://127.0.0.1:\(deaf.port)/x", "-d", out.path,
                                  "--connect-timeout", "2", "--retry", "0", "--max-time", "5"])
        let status = await status(fdl)
        #expect(status == 1, "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.contains("x: FAILED (connectionFailed): no connection within the connect timeout"), "\(fdl.stdout)")
        #expect(!fdl.stdout.contains("waiting for the network"), "\(fdl.stdout)")
    }

    @Test("`--max-time 5` counts the wait for a retry: a retry due in 30 s never comes, FAILED (resourceTimedOut) with a hint")
    func maxTimeCountsTheBackoff() async throws {
        let silent = try SilentPort()
        let out = try TemporaryDirectory()
        defer { out.remove() }
        let fdl = try FDLProcess(["get", "http://127.0.0.1:\(silent.port)/x", "-d", out.path,
                                  "--timeout", "2", "--retry", "5", "--retry-wait", "30", "--max-time", "5"])
        let status = await status(fdl)
        #expect(status == 1, "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.contains("x: FAILED (resourceTimedOut)"), "\(fdl.stdout)")
        #expect(fdl.stdout.contains("--max-time ran out"), "\(fdl.stdout)")
        #expect(retries(fdl.stdout) == 1, "one retry was due, none ran: \(fdl.stdout)")
    }

    @Test("a mistyped host where the resolver answers \"no such name\" and the machine has a default route fails at once: no retry")
    func mistypedHostFailsAtOnce() async throws {
        // Its own network with a default route and a name server that answers NXDOMAIN: the
        // same wherever the test runs, whatever DNS the machine has (or none).
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        try namespace.setResolver("127.0.0.1")
        defer { namespace.removeResolver() }
        try namespace.addDefaultRoute()
        let dns = try await NXDomainServer(in: namespace)
        defer { dns.stop() }
        let out = try TemporaryDirectory()
        defer { out.remove() }
        let fdl = try FDLProcess(["get", "http://nonexistent.invalid/x", "-d", out.path], launcher: namespace.exec)
        let status = await status(fdl)
        #expect(status == 1, "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.contains("x: FAILED (connectionFailed): no such host nonexistent.invalid"), "\(fdl.stdout)")
        #expect(retries(fdl.stdout) == 0, "\(fdl.stdout)")
        #expect(!fdl.stdout.contains("waiting for the network"), "\(fdl.stdout)")
    }

    @Test("no way out (no default route, no name server): fdl waits for the network, then gives up after --max-network-wait and says how to continue")
    func networkWaitEnds() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        try namespace.setResolver("127.0.0.1")  // nothing answers there
        defer { namespace.removeResolver() }
        let out = try TemporaryDirectory()
        defer { out.remove() }
        let fdl = try FDLProcess(["get", "http://files.example/x", "-d", out.path, "--max-network-wait", "2"],
                                 launcher: namespace.exec)
        let status = await status(fdl)
        #expect(status == 1, "\(fdl.stdout) \(fdl.stderr)")
        #expect(fdl.stdout.contains("x: waiting for the network"), "\(fdl.stdout)")
        #expect(fdl.stdout.contains("x: FAILED (networkUnavailable): no network for 2 s: giving up"), "\(fdl.stdout)")
        #expect(fdl.stdout.contains("run the same command (fdl get -c URL) to continue once the network is back"), "\(fdl.stdout)")
        #expect(retries(fdl.stdout) == 0, "\(fdl.stdout)")
    }
}
