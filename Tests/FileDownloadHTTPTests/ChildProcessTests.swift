import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The launcher every test starts its programs through (`fdl`, nginx, sshd, the Python servers):
/// a child's end is always seen and reaped, no wait outlasts its bound, and nothing is left
/// running or as a zombie.
@Suite("ChildProcess")
struct ChildProcessTests {
    /// Whether the kernel still has an entry for `pid` (a running process or an unreaped zombie).
    static func exists(_ pid: pid_t) -> Bool { FileManager.default.fileExists(atPath: "/proc/\(pid)") }

    /// `Tests/FileDownloadHTTPTests/Servers/<name>`.
    static func server(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Servers/\(name)").path
    }

    @Test("a child that exits is reaped and its exit status returned")
    func exitIsReaped() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        #expect(try await child.wait(limit: .seconds(60)) == 3)
        #expect(!child.isRunning)
        #expect(child.exitStatus == 3)
        #expect(child.endingSignal == nil)
        #expect(!Self.exists(child.processIdentifier), "pid \(child.processIdentifier) left as a zombie")
    }

    @Test("a child that never exits is killed at the bound, reaped, and the wait throws naming it")
    func boundKills() async throws {
        let child = try ChildProcess("/bin/sleep", ["1000"])
        let failure = await #expect(throws: TestFailure.self) { try await child.wait(limit: .milliseconds(300)) }
        #expect(failure?.description.contains("/bin/sleep") == true, "\(String(describing: failure))")
        #expect(failure?.description.contains("ran longer than") == true, "\(String(describing: failure))")
        #expect(!child.isRunning)
        #expect(child.exitStatus == 128 + SIGKILL)
        #expect(!Self.exists(child.processIdentifier), "pid \(child.processIdentifier) left running or as a zombie")
    }

    @Test("a child ended by signal n reports 128 + n, as a shell does", arguments: [SIGTERM, SIGINT, SIGKILL])
    func signalStatus(signal: Int32) async throws {
        // The child sends it to itself: a child inherits no blocked signal of the test process.
        let child = try ChildProcess("/bin/sh", ["-c", "kill -\(signal) $$; sleep 1000"])
        #expect(try await child.wait(limit: .seconds(60)) == 128 + signal)
        #expect(child.endingSignal == signal)
        #expect(!Self.exists(child.processIdentifier))
    }

    @Test("a signal sent with send(_:) ends the child; its status says which")
    func sendEnds() async throws {
        let child = try ChildProcess("/bin/sleep", ["1000"])
        child.send(SIGTERM)
        #expect(try await child.wait(limit: .seconds(60)) == 128 + SIGTERM)
        #expect(!Self.exists(child.processIdentifier))
    }

    @Test("a running child the test lets go of (a test that threw) is killed and reaped")
    func droppedIsKilled() throws {
        var child: ChildProcess? = try ChildProcess("/bin/sleep", ["1000"])
        let pid = try #require(child?.processIdentifier)
        #expect(Self.exists(pid))
        child = nil
        #expect(!Self.exists(pid), "pid \(pid) left running or as a zombie")
    }

    @Test("run collects the exit status, standard output and standard error, in the directory given")
    func runCollects() async throws {
        let directory = try TemporaryDirectory("child-run")
        defer { directory.remove() }
        let run = try await ChildProcess.run(["/bin/sh", "-c", "pwd; echo \"$GREETING\" >&2; exit 4"],
                                             environment: ["GREETING": "hello"], directory: directory.path, limit: .seconds(60))
        #expect(run.status == 4)
        #expect(run.stdout == directory.url.resolvingSymlinksInPath().path + "\n")
        #expect(run.stderr == "hello\n")
    }

    @Test("a program that cannot start is a TestFailure naming it, not a crash")
    func missingProgram() {
        #expect(throws: TestFailure.self) { try ChildProcess("/nonexistent/program", []) }
    }

    @Test("a Python test server exits by itself when its standard input closes (the test process is gone)",
          arguments: ["forward_proxy.py", "fault_server.py"])
    func pythonServerEndsWithItsInput(script: String) async throws {
        let directory = try TemporaryDirectory("child-python")
        defer { directory.remove() }
        let argument = script == "forward_proxy.py" ? directory.path("proxy.log") : directory.path
        let child = try ChildProcess("/usr/bin/env", ["python3", Self.server(script), argument], input: .pipe, output: .pipe)
        #expect(try child.firstLine(limit: .seconds(60)).hasPrefix("PORT "))
        #expect(child.isRunning)
        try child.standardInput?.close()
        #expect(try await child.wait(limit: .seconds(60)) == 0)
    }
}
