public import Foundation

/// The forward proxy of `Tests/FileDownloadHTTPTests/Servers/forward_proxy.py` on 127.0.0.1: it
/// binds port 0 and prints the port the kernel gave it, so two proxies never race for one. It
/// forwards absolute-form `GET`s and tunnels `CONNECT`, and appends every request line to a log
/// this class reads (``requests``).
public final class ForwardProxy: @unchecked Sendable {
    public let port: Int
    private let process = Process()
    private let logPath: String

    /// Starts the proxy, logging into `directory`; with `credentials` (`user:password`) it answers
    /// 407 to requests without them.
    public init(logIn directory: URL, credentials: String? = nil) throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        logPath = directory.appendingPathComponent("proxy-\(UUID().uuidString.prefix(8)).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", tests.appendingPathComponent("FileDownloadHTTPTests/Servers/forward_proxy.py").path,
                             logPath] + (credentials.map { ["--auth", $0] } ?? [])
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
            throw TestFailure("the forward proxy said '\(said)' instead of its port")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The requests the proxy saw, in order: `GET http://host:port/path`, `CONNECT host:port`,
    /// with ` auth` appended when the request carried `Proxy-Authorization`.
    public var requests: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the proxy (it exits on SIGTERM; Foundation reaps it).
    public func stop() {
        if process.isRunning { process.terminate() }
    }
}
