import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local attacker: a Python process run as another user (through `setpriv`) that keeps
/// `count` TCP connections to 127.0.0.1:`port` open, each with half a request head sent, opening a
/// new one for each the server closes, until SIGTERM, `seconds`, or 100 × `count` connections.
/// It prints `flooding COUNT` once it holds `count` connections, and at its end a line
/// `opened N closed-by-agent N failed N open N stopped term|deadline`.
final class HalfRequestFlooder: Sendable {
    let process: ChildProcess
    private let directory: TemporaryDirectory

    static let script = #"""
        import resource, selectors, signal, socket, sys, time
        port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        half = b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: "
        stop = False
        def on_term(*_):
            global stop
            stop = True
        signal.signal(signal.SIGTERM, on_term)
        sel = selectors.DefaultSelector()
        opened = closed = failed = 0
        announced = False
        deadline = time.monotonic() + seconds
        while not stop and time.monotonic() < deadline and opened < 100 * count:
            while len(sel.get_map()) < count and not stop:
                s = socket.socket()
                s.settimeout(2)
                try:
                    s.connect(("127.0.0.1", port))
                    s.sendall(half)
                except OSError:
                    failed += 1
                    s.close()
                    break
                s.setblocking(False)
                sel.register(s, selectors.EVENT_READ)
                opened += 1
            if not announced and len(sel.get_map()) >= count:
                announced = True
                print(f"flooding {count}", flush=True)
            for key, _ in sel.select(timeout=0.2):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    closed += 1
        print(f"opened {opened} closed-by-agent {closed} failed {failed} open {len(sel.get_map())} "
              f"stopped {'term' if stop else 'deadline'}", flush=True)
        """#

    /// Starts the flood as `uid` (group `uid` too, no supplementary groups).
    init(port: Int, count: Int, seconds: Int, uid: Int) throws {
        directory = try TemporaryDirectory("flooder")
        process = try ChildProcess("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                                                        "/usr/bin/python3", "-c", Self.script, String(port), String(count), String(seconds)],
                                   output: .file(directory.path("out")), error: .file(directory.path("err")))
    }

    /// What it printed so far, standard output then standard error.
    var output: String {
        ((try? String(contentsOfFile: directory.path("out"), encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: directory.path("err"), encoding: .utf8)) ?? "")
    }

    /// Returns once it holds all its connections; fails when it ends first or after `seconds`.
    func waitUntilFlooding(seconds: Int = 120) async throws {
        try await poll("the flooder holds its connections", limit: .seconds(seconds), interval: .milliseconds(20)) {
            output.contains("flooding") || !process.isRunning
        }
        guard process.isRunning else { throw TestFailure("the flooder ended before it flooded: \(output)") }
    }

    /// Stops it (SIGTERM), waits for its last line and returns its counts by name.
    func stop() async throws -> [String: Int] {
        process.send(SIGTERM)
        try await process.wait(limit: .seconds(60))
        let words = output.split(whereSeparator: \.isWhitespace).map(String.init)
        var counts: [String: Int] = [:]
        for (name, value) in zip(words, words.dropFirst()) { if let number = Int(value) { counts[name] = number } }
        return counts
    }

    /// Kills it if it still runs, and removes its output.
    func remove() {
        process.kill()
        directory.remove()
    }
}
