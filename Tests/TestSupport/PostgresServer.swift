import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server (Debian's `postgresql` package) for one test: a cluster made by
/// `initdb` in a temporary directory, listening on 127.0.0.1 and a free port, its Unix socket in
/// that directory, password authentication (SCRAM) for the user ``user``.
///
/// initdb and postgres refuse to run as root, so both run as the `postgres` system user
/// (`setpriv`, which execs in place: the pid is the server's), in a directory chowned to it.
/// ``stop()`` shuts it down (fast shutdown: sessions are ended) and removes the directory;
/// ``restart()`` shuts it down and starts it again on the same port, keeping the data.
public final class PostgresServer: Sendable {
    /// The superuser the tests log in as.
    public let user = "fdl"
    /// Its password (random per server).
    public let password: String
    /// The database that initdb makes.
    public let database = "postgres"
    public let directory: TemporaryDirectory
    /// The TCP port on 127.0.0.1 (the same after ``restart()``).
    public var port: Int { launchedPort.withLock { $0 } }
    private let launchedPort = Mutex(0)
    private let binaries: String
    private let owner: (uid: uid_t, gid: gid_t)
    private let process: Mutex<ChildProcess?>

    /// `postgres://fdl@127.0.0.1:PORT/postgres` (no password: give ``password`` apart).
    public var url: String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// Makes the cluster and starts the server; returns once it accepts TCP connections.
    ///
    /// - Throws: a ``TestFailure`` naming the missing package, or initdb's or the server's output.
    public init() async throws {
        guard let version = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .compactMap(Int.init).max() else {
            throw TestFailure("PostgreSQL is not installed: apt-get install -y postgresql (scripts/install-deps.sh)")
        }
        binaries = "/usr/lib/postgresql/\(version)/bin"
        guard let entry = getpwnam("postgres") else { throw TestFailure("there is no 'postgres' user (apt-get install -y postgresql)") }
        owner = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        password = UUID().uuidString
        directory = try TemporaryDirectory("postgres")
        process = Mutex(nil)
        do {
            try makeCluster()
            let port = try await launch(port: nil)
            launchedPort.withLock { $0 = port }
        } catch {
            stop()  // a server that started but never accepted sessions is shut down too
            throw error
        }
    }

    private var dataPath: String { directory.path("data") }
    private var logPath: String { directory.path("server.log") }

    private func asPostgres(_ command: [String]) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--"] + command
    }

    private func makeCluster() throws {
        guard chown(directory.path, owner.uid, owner.gid) == 0 else { throw TestFailure("cannot chown \(directory.path) to postgres") }
        let passwordFile = try directory.createFile("pwfile", contents: Data(password.utf8))
        chown(passwordFile, owner.uid, owner.gid)
        let run = try ChildProcess.runBlocking(asPostgres([
            "\(binaries)/initdb", "-D", dataPath, "-U", user, "--auth=scram-sha-256", "--pwfile=\(passwordFile)",
            "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
        ]), limit: .seconds(120))
        guard run.status == 0 else { throw TestFailure("initdb failed (\(run.status)): \(run.stderr) \(run.stdout)") }
    }

    /// Starts the server on `port` (or a free one) and returns once it accepts sessions.
    private func launch(port wanted: Int?) async throws -> Int {
        if let wanted {
            // Again on its own port (the clients know it, so no other port will do).
            try await relaunch(port: wanted)
            return wanted
        }
        let port = try await LoopbackLaunch.start("postgres", limit: .seconds(60)) { ports in
            let child = try start(port: ports[0])
            return (ports[0], LoopbackLaunch.Watch(child, diagnostics: { "postgres said: " + self.serverLog }))
        }.server
        // Listening is not yet accepting sessions ("the database system is starting up").
        try await acceptsSessions(port: port) { true }
        return port
    }

    /// Starts the server on `port`, again (up to 40 times, 250 ms apart) while it exits at once
    /// because the port is taken (another process may hold it for a moment); returns once it
    /// runs and accepts sessions, or throws.
    private func relaunch(port: Int) async throws {
        for attempt in 1...40 {
            let child = try start(port: port)
            try await acceptsSessions(port: port) { child.isRunning }
            if child.isRunning { return }
            guard serverLog.contains("could not bind"), attempt < 40 else {
                throw TestFailure("postgres did not start again on port \(port) (attempt \(attempt)): \(serverLog)")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Waits (at most 60 s) until the server on `port` answers a query, or `running` turns false.
    private func acceptsSessions(port: Int, while running: () -> Bool) async throws {
        do {
            try await poll("postgres accepts sessions", limit: .seconds(60), interval: .milliseconds(50)) {
                !running() || (try? psql("SELECT 1", port: port)) == "1"
            }
        } catch {
            throw TestFailure("\(error): \(serverLog)")
        }
    }

    private var serverLog: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts the server on `port` (its stderr to server.log).
    private func start(port: Int) throws -> ChildProcess {
        let command = asPostgres([
            "\(binaries)/postgres", "-D", dataPath, "-p", "\(port)", "-k", directory.path,
            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off", "-c", "max_connections=100", "-c", "shared_buffers=32MB",
        ])
        let child = try ChildProcess(command[0], Array(command.dropFirst()), error: .file(logPath))
        process.withLock { $0 = child }
        return child
    }

    /// Shuts the server down (SIGINT: fast shutdown, sessions end) and waits until it exited.
    public func shutDown() throws {
        guard let child = process.withLock({ $0 }) else { return }
        child.send(SIGINT)
        _ = try child.waitBlocking(limit: .seconds(60))
        process.withLock { $0 = nil }
    }

    /// Shuts the server down and starts it again on the same port, with the same data.
    public func restart() async throws {
        try shutDown()
        _ = try await launch(port: port)
    }

    /// Runs `sql` with psql over the Unix socket and returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String) throws -> String {
        try psql(sql, port: port)
    }

    private func psql(_ sql: String, port: Int) throws -> String {
        let run = try ChildProcess.runBlocking(
            ["\(binaries)/psql", "-h", directory.path, "-p", "\(port)", "-U", user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
            environment: ["PGPASSWORD": password, "PATH": "/usr/bin:/bin"], limit: .seconds(60))
        guard run.status == 0 else { throw TestFailure("psql failed (\(run.status)): \(run.stderr)") }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Shuts the server down and removes its directory.
    public func stop() {
        try? shutDown()
        if let child = process.withLock({ $0 }) { child.kill() }
        directory.remove()
    }
}
