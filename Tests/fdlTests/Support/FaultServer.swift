import FileDownloadTestSupport
import Foundation

/// The fault-injecting HTTP server of the HTTP tests (`Tests/FileDownloadHTTPTests/Servers/
/// fault_server.py`) serving `root` on 127.0.0.1: it binds port 0 and prints the port the kernel
/// gave it, so two servers never race for one.
final class FaultServer: @unchecked Sendable {
    let port: Int
    private let process = Process()

    init(root: URL) throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", tests.appendingPathComponent("FileDownloadHTTPTests/Servers/fault_server.py").path,
                             root.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "PORT n" once it listens; an empty read is the end of its output (it died).
        var said = ""
        while !said.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        guard said.hasPrefix("PORT "), let port = Int(said.dropFirst(5).prefix(while: \.isNumber)) else {
            process.terminate()
            throw TestFailure("the fault server said '\(said)' instead of its port")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/path?query`.
    func url(_ path: String, _ query: String = "") -> String {
        "http://127.0.0.1:\(port)/\(path)" + (query.isEmpty ? "" : "?\(query)")
    }

    /// Stops the server (it exits on SIGTERM; Foundation reaps it).
    func stop() {
        if process.isRunning { process.terminate() }
    }
}
