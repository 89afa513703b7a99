import FileDownloadTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process the tests start and stop (nginx, the fault server).
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let stdout = Pipe()
    private let stderrFile: URL

    /// Starts `executable` with `arguments`; its stderr goes to `stderrFile` for diagnostics.
    init(_ executable: String, _ arguments: [String], stderrFile: URL) throws {
        self.stderrFile = stderrFile
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        do {
            try process.run()
        } catch {
            throw TestFailure("cannot start \(executable): \(error)")
        }
    }

    deinit { stop() }

    /// Reads the first line the process prints (blocking, bounded by the process: EOF ends it).
    func firstLine() throws -> String {
        var bytes: [UInt8] = []
        let handle = stdout.fileHandleForReading
        while true {
            let data = handle.availableData
            if data.isEmpty {
                throw TestFailure("\(process.executableURL!.path) exited before it said its port: \(stderrText)")
            }
            bytes += data
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: bytes[..<newline], as: UTF8.self)
            }
        }
    }

    /// What the process wrote to stderr so far.
    var stderrText: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    /// Terminates the process (SIGTERM) and reaps it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
