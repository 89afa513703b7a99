public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program a test starts (`fdl`, nginx, sshd, a Python server, curl, openssl), started with
/// `posix_spawn` and reaped with `waitpid` on a thread of its own.
///
/// Not `Foundation.Process`: it learns of a child's exit on a dispatch queue, and on a busy
/// 2-core runner that queue can be starved by the cooperative pool, so a child that has ended
/// stays a zombie and whoever awaits it waits forever (a CI run hung that way). Here:
/// 1. the child starts with an empty signal mask and default handlers for SIGTERM, SIGINT,
///    SIGPIPE and SIGHUP (the spawning thread may block them), in `directory` if given, with
///    every descriptor above 2 closed (so no child keeps another child's pipe open);
/// 2. a dedicated thread waits for it (`waitpid` on its pid only, never on any child) and records
///    its status; nothing else reaps it, so its pid is never reused while this object knows it;
/// 3. every wait for the end is bounded: when `limit` passes, the child is killed with SIGKILL
///    and the wait throws a ``TestFailure`` naming it;
/// 4. a child still running when the last reference to this object goes (a test that threw
///    before it stopped its server, say) is killed with SIGKILL and reaped then.
///
/// A child that outlives the test process: give it `.pipe` as standard input and have it exit on
/// end of file (the Python servers do, ``PortServer``); the pipe closes when this object goes
/// away or the test process dies.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose writing end is ``standardInput``.
        case pipe
    }

    /// Where one of the child's outputs goes.
    public enum Output: Sendable, Equatable {
        /// `/dev/null`.
        case null
        /// A pipe whose reading end is ``standardOutput`` or ``standardError``.
        case pipe
        /// The file at this path, created or truncated (one open file when both outputs name it).
        case file(String)
        /// This open descriptor of the test process (a pseudo-terminal); the caller closes it.
        case descriptor(Int32)
    }

    /// The child's pid (valid until ``wait(limit:)`` returns: nothing else reaps it).
    public let processIdentifier: pid_t
    /// The program's path, for messages.
    public let executable: String
    /// The writing end of the child's standard input (with `.pipe`).
    public let standardInput: FileHandle?
    /// The reading end of the child's standard output (with `.pipe`).
    public let standardOutput: FileHandle?
    /// The reading end of the child's standard error (with `.pipe`).
    public let standardError: FileHandle?
    private let end: End

    /// The raw wait status once recorded, and a semaphore signalled then.
    private final class End: Sendable {
        let status = Mutex<Int32?>(nil)
        let ended = DispatchSemaphore(value: 0)
    }

    /// Starts `executable` (an absolute path) with `arguments`, `environment` (by default this
    /// process's) and working `directory` (by default this process's).
    ///
    /// - Throws: a ``TestFailure`` when the program cannot be started.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                directory: String? = nil, input: Input = .null, output: Output = .null, error: Output = .null) throws {
        self.executable = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func failed() { for case let fd? in parentEnds { close(fd) } }
        let streams: [(Int32, Output)] = [(0, input == .pipe ? .pipe : .null), (1, output), (2, error)]
        for (target, stream) in streams {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path) where target == 2 && output == .file(path):
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard GNU.pipe2(&ends, O_CLOEXEC) == 0 else {
                    failed()
                    throw TestFailure("pipe2 failed for \(executable): errno \(errno)")
                }
                let (parent, child) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                parentEnds[Int(target)] = parent
                childEnds.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)  // dup2 clears FD_CLOEXEC
            }
        }
        GNU.addClosefrom(&actions, 3)
        if let directory { GNU.addChdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            failed()
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
        let child = pid
        let handles = parentEnds.map { $0.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) } }
        (standardInput, standardOutput, standardError) = (handles[0], handles[1], handles[2])
        let end = End()
        self.end = end
        Thread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
            end.status.withLock { $0 = raw }
            end.ended.signal()
        }.start()
    }

    /// Kills the child (SIGKILL) and reaps it, unless it has ended.
    deinit { if isRunning { kill() } }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { end.status.withLock { $0 == nil } }

    /// The exit status (128 + n when signal n ended it, as a shell reports it), once the child has ended.
    public var exitStatus: Int32? {
        end.status.withLock { $0 }.map { raw in raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f) }
    }

    /// The signal that ended the child, once it has ended by one.
    public var endingSignal: Int32? {
        end.status.withLock { $0 }.flatMap { raw in raw & 0x7f == 0 ? nil : raw & 0x7f }
    }

    /// Sends `signal` to the child, unless it has ended (its pid may be reused then).
    public func send(_ signal: Int32) {
        end.status.withLock { if $0 == nil { Glibc.kill(processIdentifier, signal) } }
    }

    /// Waits for the child to end, blocking the calling thread, and returns its exit status.
    ///
    /// - Throws: a ``TestFailure`` when it runs longer than `limit`; it is killed (SIGKILL) then.
    @discardableResult
    public func waitBlocking(limit: Duration = .seconds(300)) throws -> Int32 {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        if end.ended.wait(timeout: .now() + seconds) == .success {
            end.ended.signal()  // for the next waiter
            return exitStatus ?? -1
        }
        kill()
        throw TestFailure("\(executable) (pid \(processIdentifier)) ran longer than \(limit); killed it")
    }

    /// ``waitBlocking(limit:)`` on a thread of its own, so no thread of the cooperative pool blocks.
    @discardableResult
    public func wait(limit: Duration = .seconds(300)) async throws -> Int32 {
        try await Self.onThread { try self.waitBlocking(limit: limit) }
    }

    /// Kills the child (SIGKILL) and waits for it to end (it cannot ignore SIGKILL; bounded anyway).
    public func kill() {
        send(SIGKILL)
        if end.ended.wait(timeout: .now() + 30) == .success { end.ended.signal() }
    }

    /// Runs `command` (an absolute path and its arguments) to its end, its outputs collected in
    /// files (a pipe would wait for any grandchild that keeps it open), blocking the calling thread.
    ///
    /// - Returns: the exit status (128 + n for signal n), standard output and standard error.
    /// - Throws: a ``TestFailure`` when it cannot start, or runs longer than `limit` (then killed).
    public static func runBlocking(_ command: [String], environment: [String: String]? = nil, directory: String? = nil,
                                   limit: Duration = .seconds(300)) throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = try TemporaryDirectory("run")
        defer { scratch.remove() }
        let (outPath, errPath) = (scratch.path("out"), scratch.path("err"))
        let child = try ChildProcess(command[0], Array(command.dropFirst()), environment: environment, directory: directory,
                                     output: .file(outPath), error: .file(errPath))
        let status = try child.waitBlocking(limit: limit)
        return (status, (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// ``runBlocking(_:environment:directory:limit:)`` for a tool that must succeed: returns its
    /// standard output, and throws a ``TestFailure`` with its standard error when its exit status
    /// is not 0.
    @discardableResult
    public static func runChecked(_ command: [String], limit: Duration = .seconds(300)) throws -> String {
        let run = try runBlocking(command, limit: limit)
        guard run.status == 0 else {
            throw TestFailure("\(command.joined(separator: " ")) failed with status \(run.status): \(run.stderr)")
        }
        return run.stdout
    }

    /// ``runBlocking(_:environment:directory:limit:)`` on a thread of its own.
    public static func run(_ command: [String], environment: [String: String]? = nil, directory: String? = nil,
                           limit: Duration = .seconds(300)) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await onThread { try runBlocking(command, environment: environment, directory: directory, limit: limit) }
    }

    /// The result of `body`, run on a new thread.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
            Thread { done.resume(with: Result { try body() }) }.start()
        }
    }
}

/// glibc functions Swift's `Glibc` module does not declare (they need `_GNU_SOURCE`), looked up by
/// name: glibc has had them since 2.34 (Debian 12 has 2.36).
private enum GNU {
    /// `pipe2(fds, flags)`: a pipe whose ends carry `flags` (`O_CLOEXEC`) from the start.
    static func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 {
        typealias Function = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        return unsafeBitCast(symbol("pipe2"), to: Function.self)(fds, flags)
    }

    /// `posix_spawn_file_actions_addclosefrom_np`: the child closes every descriptor from `lowest` on.
    static func addClosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        typealias Function = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: Function.self)(actions, lowest)
    }

    /// `posix_spawn_file_actions_addchdir_np`: the child changes to `directory` before it executes.
    static func addChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ directory: String) {
        typealias Function = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        _ = unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: Function.self)(actions, directory)
    }

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(nil, name) else { fatalError("this C library lacks \(name) (glibc 2.34 or later has it)") }
        return address
    }
}
