import FileDownloadTestSupport
import Foundation

/// One run of the `fdl-crash-helper` executable, its output going to files.
final class HelperProcess {
    /// One `RESULT` line of the helper.
    struct Result: Equatable {
        var id: String
        var state: String
        var errorCode: String
        var partBytes: Int64
        var message: String
    }

    private let process = Process()
    private let output: URL
    private let exited: Task<Int32, Never>

    /// The helper built next to the test bundle (the test target depends on it).
    static var executable: URL {
        let bundleDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return bundleDirectory.appending(path: "fdl-crash-helper")
    }

    /// Starts the helper with `arguments`; its standard output and error go to `output`.
    init(_ arguments: [String], output: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw TestFailure("the helper \(Self.executable.path) is missing: build with `swift build --build-tests`")
        }
        self.output = output
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw TestFailure("cannot create \(output.path)")
        }
        let handle = try FileHandle(forWritingTo: output)
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ProxyFreeEnvironment.of()
        process.standardOutput = handle
        process.standardError = handle
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
        try process.run()
        try handle.close()
        exited = Task { await stream.first { _ in true } ?? -1 }
    }

    /// Sends SIGKILL: the process dies at once, without any chance to clean up.
    func killHard() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end, at most `limit`; kills it and throws when it runs longer.
    /// Returns the exit status (or the signal number for a killed process).
    @discardableResult
    func waitForExit(limit: Duration) async throws -> Int32 {
        let exited = self.exited
        return try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { await exited.value }
            group.addTask {
                try? await Task.sleep(for: limit) // an upper bound, not a wait for an event
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let status = first else {
                killHard()
                _ = await exited.value
                throw TestFailure("the helper ran longer than \(limit); output:\n\(outputText)")
            }
            return status
        }
    }

    /// Everything the helper printed.
    var outputText: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// The `RESULT` lines, by download id.
    var results: [String: Result] {
        var results: [String: Result] = [:]
        for line in outputText.split(separator: "\n") where line.hasPrefix("RESULT ") {
            let f = line.split(separator: " ", maxSplits: 5).map(String.init)
            guard f.count == 6 else { continue }
            results[f[1]] = Result(id: f[1], state: f[2], errorCode: f[3], partBytes: Int64(f[4]) ?? -1, message: f[5])
        }
        return results
    }
}
