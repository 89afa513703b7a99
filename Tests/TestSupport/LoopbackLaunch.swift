import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts a server process (nginx, sshd) on loopback ports in a way that cannot lose a race.
///
/// A port that was free when ``LoopbackPort/free()`` picked it can be taken by another process
/// before the server binds it (another test, another run, a build beside them). A launch:
/// 1. picks `count` distinct free ports and calls `start` with them;
/// 2. polls, every 20 ms, until the started process itself listens on every port: its pid holds a
///    listening socket on 127.0.0.1:port (read from `/proc`), so another program that took the
///    port is never mistaken for the server;
/// 3. when the process ends before that (nginx and sshd exit when a port is taken), it stops it and
///    starts again on new ports, at most `attempts` times in all;
/// 4. when `limit` passes with the process running but not listening, it stops it and fails.
public enum LoopbackLaunch {
    /// What a launch needs to watch a process it started.
    public struct Watch: Sendable {
        /// The pid that holds the listening sockets; `nil` while it is not known yet (a daemon
        /// that has not written its pid file).
        public var pid: @Sendable () -> Int32?
        /// Whether the process still runs.
        public var isRunning: @Sendable () -> Bool
        /// What to say when the launch fails (the server's log).
        public var diagnostics: @Sendable () -> String
        /// Stops the process (and cleans up what `start` made that a retry would make again).
        public var stop: @Sendable () -> Void

        public init(pid: @escaping @Sendable () -> Int32?, isRunning: @escaping @Sendable () -> Bool,
                    diagnostics: @escaping @Sendable () -> String = { "" }, stop: @escaping @Sendable () -> Void) {
            self.pid = pid
            self.isRunning = isRunning
            self.diagnostics = diagnostics
            self.stop = stop
        }

        /// The watch of a server that is `child` itself; ``stop`` kills it (SIGKILL) and reaps it.
        public init(_ child: ChildProcess, diagnostics: @escaping @Sendable () -> String = { "" }) {
            self.init(pid: { child.processIdentifier }, isRunning: { child.isRunning }, diagnostics: diagnostics,
                      stop: { child.kill() })
        }
    }

    /// Starts a server with `start` (see ``LoopbackLaunch``) and returns it with its ports once it
    /// listens. Blocks the calling thread between polls: for synchronous initializers.
    ///
    /// - Throws: a ``TestFailure`` naming `server` when every attempt lost its ports, or the server
    ///   did not listen within `limit`; or what `start` threw.
    public static func startBlocking<Server>(
        _ server: String, ports count: Int = 1, attempts: Int = 5, limit: Duration = .seconds(20),
        _ start: ([Int]) throws -> (Server, Watch)
    ) throws -> (server: Server, ports: [Int]) {
        var problem = ""
        launch: for _ in 0..<attempts {
            let ports = try distinctFreePorts(count)
            let (value, watch) = try start(ports)
            let deadline = ContinuousClock.now + limit
            while true {
                switch try poll(watch, ports: ports, server: server, limit: limit, deadline: deadline) {
                case .listening: return (value, ports)
                case .starting: usleep(20_000)
                case .exited(let why):
                    problem = why
                    continue launch
                }
            }
        }
        throw TestFailure("\(server) could not listen on a free port in \(attempts) attempts; the last: \(problem)")
    }

    /// ``startBlocking(_:ports:attempts:limit:_:)`` that suspends between polls instead.
    public static func start<Server>(
        _ server: String, ports count: Int = 1, attempts: Int = 5, limit: Duration = .seconds(20),
        _ start: ([Int]) async throws -> (Server, Watch)
    ) async throws -> (server: Server, ports: [Int]) {
        var problem = ""
        launch: for _ in 0..<attempts {
            let ports = try distinctFreePorts(count)
            let (value, watch) = try await start(ports)
            let deadline = ContinuousClock.now + limit
            while true {
                switch try poll(watch, ports: ports, server: server, limit: limit, deadline: deadline) {
                case .listening: return (value, ports)
                case .starting: try await Task.sleep(for: .milliseconds(20))
                case .exited(let why):
                    problem = why
                    continue launch
                }
            }
        }
        throw TestFailure("\(server) could not listen on a free port in \(attempts) attempts; the last: \(problem)")
    }

    private enum Poll {
        case listening, starting
        /// The process ended before it listened: try again on new ports.
        case exited(String)
    }

    /// One look at the process: listening, still starting, or gone. Throws when `deadline` passed.
    private static func poll(_ watch: Watch, ports: [Int], server: String, limit: Duration,
                             deadline: ContinuousClock.Instant) throws -> Poll {
        if let pid = watch.pid(), ports.allSatisfy({ isListening(pid: pid, port: $0) }) { return .listening }
        if !watch.isRunning() {
            let why = "\(server) exited before it listened on 127.0.0.1:\(ports): \(watch.diagnostics())"
            watch.stop()
            return .exited(why)
        }
        guard ContinuousClock.now < deadline else {
            let details = watch.diagnostics()
            watch.stop()
            throw TestFailure("\(server) did not listen on 127.0.0.1:\(ports) within \(limit); \(details)")
        }
        return .starting
    }

    /// `count` different ports that were free a moment ago.
    private static func distinctFreePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        while ports.count < count {
            let port = try LoopbackPort.free()
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }

    /// Whether process `pid` holds a listening TCP socket on 127.0.0.1:`port` (or on all
    /// addresses): the socket inodes among its open files, matched against `/proc/net/tcp`.
    public static func isListening(pid: Int32, port: Int) -> Bool {
        let fdDirectory = "/proc/\(pid)/fd"
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return false }
        var inodes = Set<Substring>()
        for fd in fds {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fdDirectory + "/" + fd),
                  target.hasPrefix("socket:[") else { continue }
            inodes.insert(Substring(target.dropFirst(8).dropLast()))
        }
        guard !inodes.isEmpty, let table = readProcFile("/proc/net/tcp") else { return false }
        let wanted = [String(format: "0100007F:%04X", port), String(format: "00000000:%04X", port)]
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        for line in table.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 9, columns[3] == "0A", wanted.contains(String(columns[1])) else { continue }
            if inodes.contains(columns[9]) { return true }
        }
        return false
    }

    /// The whole text of a `/proc` file. Its size reads as 0 and the kernel hands it out a page at a
    /// time, so it is read until end of file (a busy machine's socket table is many pages).
    private static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += buffer[..<n]
        }
    }
}
