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

    private let process: ChildProcess
    private let output: URL

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
        process = try ChildProcess(Self.executable.path, arguments, environment: ProxyFreeEnvironment.of(),
                                   output: .file(output.path), error: .file(output.path))
    }

    /// Sends SIGKILL: the process dies at once, without any chance to clean up.
    func killHard() {
        process.send(SIGKILL)
    }

    /// Waits for the process to end, at most `limit`; kills it and throws when it runs longer.
    /// Returns the exit status (or the signal number for a killed process).
    @discardableResult
    func waitForExit(limit: Duration) async throws -> Int32 {
        do {
            let status = try await process.wait(limit: limit)
            return process.endingSignal ?? status
        } catch {
            throw TestFailure("the helper ran longer than \(limit); output:\n\(outputText)")
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
