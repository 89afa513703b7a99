public import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `fdl` executable of this build, run as a child process the way a person or script runs it.
///
/// Standard output goes to a pipe (not a terminal) or, with `terminal: true`, to a
/// pseudo-terminal of the given width and height, so `fdl` draws its live display
/// (``resize(columns:rows:)`` changes its size). Output is collected as it
/// comes; ``waitForOutput(containing:)`` awaits a piece of it without polling.
public final class FDLProcess: Sendable {
    public let process: ChildProcess
    private let output = Shared(OutputState())
    private let errors = Shared<String>("")
    private let reactions = Shared<[(String, @Sendable () -> Void)]>([])
    private let finished: Task<Result<Int32, any Error>, Never>
    /// The pseudo-terminal's primary side (with `terminal: true`), for resizing it.
    public let terminalDescriptor: Int32?
    /// How long `fdl` may run, and a wait for its output may last: past it, `fdl` is killed and
    /// the waiting test fails.
    public static let limit: Duration = .seconds(600)

    /// Standard output so far, and who awaits a piece of it.
    private struct OutputState {
        var text = ""
        var waiters: [(id: Int, text: String, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
        var ended = false
    }

    /// The path of the `fdl` built next to the test bundle.
    public static var executable: String {
        get throws {
            let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            var candidates = [bundleDir.appendingPathComponent("fdl").path]
            let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            candidates.append(packageRoot.appendingPathComponent(".build/debug/fdl").path)
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw TestFailure("the fdl executable was not built (looked at \(candidates)); run `swift build --build-tests`")
            }
            return found
        }
    }

    /// Starts `fdl arguments...`; `environment` sets (or, with `nil`, removes) variables of the
    /// test process's environment for it, and `input` (when given) is its standard input (else
    /// /dev/null). With a `launcher` (an absolute path and its arguments, such as
    /// `NetworkNamespace.exec`), `fdl` runs through it.
    public init(_ arguments: [String], terminal: Bool = false, columns: Int = 100, rows: Int = 40, environment changes: [String: String?] = [:],
         input: Data? = nil, launcher: [String] = []) throws {
        // Without the runner's proxy variables (tests that want a proxy set one).
        var environment = ProxyFreeEnvironment.of()
        environment["COLUMNS"] = nil
        for (name, value) in changes { environment[name] = value }
        var secondary: Int32 = -1
        if terminal {
            var primary: Int32 = -1
            var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
            guard openpty(&primary, &secondary, nil, nil, &size) == 0 else {
                throw TestFailure("openpty failed: errno \(errno)")
            }
            terminalDescriptor = primary
        } else {
            terminalDescriptor = nil
        }
        defer { if terminal { close(secondary) } }
        let command = launcher + [try Self.executable] + arguments
        let process = try ChildProcess(command[0], Array(command.dropFirst()), environment: environment,
                                       input: input == nil ? .null : .pipe,
                                       output: terminal ? .descriptor(secondary) : .pipe, error: .pipe)
        self.process = process
        let reader = terminalDescriptor.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) } ?? process.standardOutput!
        if let writer = process.standardInput, let input {
            // On a thread: more than a pipe's buffer would block until fdl reads it.
            Thread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }.start()
        }
        let output = self.output
        let errors = self.errors
        let reactions = self.reactions
        let outputDone = Self.drain(reader) { chunk in
            let (ready, text) = output.withLock { state -> ([CheckedContinuation<Void, any Error>], String) in
                state.text += chunk
                let (met, waiting) = state.waiters.partitioned { state.text.contains($0.text) }
                state.waiters = waiting
                return (met.map(\.continuation), state.text)
            }
            for continuation in ready { continuation.resume() }
            let due = reactions.withLock { pending -> [@Sendable () -> Void] in
                let (met, rest) = pending.partitioned { text.contains($0.0) }
                pending = rest
                return met.map(\.1)
            }
            for action in due { action() }
        }
        let errorDone = Self.drain(process.standardError!) { chunk in errors.withLock { $0 += chunk } }
        finished = Task.detached {
            // Reaped on a thread of its own (ChildProcess), never by blocking the cooperative pool.
            let status: Result<Int32, any Error>
            do {
                status = .success(try await process.wait(limit: Self.limit))
            } catch {
                status = .failure(error)
            }
            await outputDone.value
            await errorDone.value
            let left = output.withLock { state -> [CheckedContinuation<Void, any Error>] in
                state.ended = true
                defer { state.waiters = [] }
                return state.waiters.map(\.continuation)
            }
            for continuation in left { continuation.resume(throwing: TestFailure("fdl ended before printing the awaited text")) }
            return status
        }
    }

    /// Kills `fdl` (SIGKILL) and reaps it if it still runs when the test lets go of this object
    /// (a test that threw before it awaited ``exitStatus()``).
    deinit { process.kill() }

    /// Reads `handle` on a thread of its own until end of file (or EIO, the end of a pseudo-terminal).
    private static func drain(_ handle: FileHandle, _ body: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        let fd = handle.fileDescriptor
        return Task.detached {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let n = read(fd, &buffer, buffer.count)
                        if n < 0, errno == EINTR { continue }
                        if n <= 0 { break }
                        body(String(decoding: buffer[0..<n], as: UTF8.self))
                    }
                    withExtendedLifetime(handle) {}
                    done.resume()
                }.start()
            }
        }
    }

    /// Everything written to standard output so far.
    public var stdout: String { output.withLock { $0.text } }
    /// Everything written to standard error so far.
    public var stderr: String { errors.withLock { $0 } }

    /// Returns once standard output contains `text`; throws if `fdl` ends first, or when
    /// ``limit`` passes.
    public func waitForOutput(containing text: String) async throws {
        let output = self.output
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let immediate: Result<Void, any Error>? = output.withLock { state in
                if state.text.contains(text) { return .success(()) }
                if state.ended { return .failure(TestFailure("fdl ended without printing '\(text)'")) }
                let id = state.nextID
                state.nextID += 1
                state.waiters.append((id, text, continuation))
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(Self.limit.components.seconds))) {
                    let expired = output.withLock { state in
                        let (gone, rest) = state.waiters.partitioned { $0.id == id }
                        state.waiters = rest
                        return gone.first?.continuation
                    }
                    expired?.resume(throwing: TestFailure("fdl did not print '\(text)' within \(Self.limit)"))
                }
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    /// Runs `action` on the thread that reads the output as soon as standard output contains
    /// `text` (at once if it already does): for reactions that must not wait for a busy
    /// cooperative pool, such as interrupting a transfer in the middle.
    public func whenOutput(contains text: String, _ action: @escaping @Sendable () -> Void) {
        let now = output.withLock { state in
            if state.text.contains(text) { return true }
            reactions.withLock { $0.append((text, action)) }
            return false
        }
        if now { action() }
    }

    /// Sends `signal` to the process (unless it has ended).
    public func send(_ signal: Int32) { process.send(signal) }

    /// Waits for the process to end and returns its exit status (128 + n when killed by signal n).
    /// When it runs longer than ``limit`` it is killed, and the test fails saying so.
    public func exitStatus() async -> Int32 {
        switch await finished.value {
        case .success(let status):
            return status
        case .failure(let error):
            Issue.record("\(error); stderr: \(stderr)")
            return process.exitStatus ?? -1
        }
    }

    /// Runs `fdl arguments...` to the end.
    public static func run(_ arguments: [String], terminal: Bool = false, environment: [String: String?] = [:],
                    input: Data? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let fdl = try FDLProcess(arguments, terminal: terminal, environment: environment, input: input)
        let status = await fdl.exitStatus()
        return (status, fdl.stdout, fdl.stderr)
    }

    /// The JSON objects of `--json` output, one per line.
    public var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// A value behind a lock that closures can share.
public final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public func withLock<R>(_ body: (inout sending Value) throws -> sending R) rethrows -> sending R { try mutex.withLock(body) }
}

extension Array {
    /// The elements that satisfy `predicate`, and the rest, in order.
    fileprivate func partitioned(by predicate: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = [], rest: [Element] = []
        for element in self {
            if predicate(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
