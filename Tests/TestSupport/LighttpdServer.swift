public import Foundation

/// lighttpd 1.4 (Debian's `lighttpd`) serving a directory on 127.0.0.1, started by the test in the
/// foreground (`lighttpd -D -f CONF`) with a configuration of its own in a temporary directory (no
/// system service), and stopped by ``stop()``. Like Apache, it answers a range past the end with a
/// 416 without `Content-Range`.
public final class LighttpdServer: Sendable {
    public let port: UInt16
    /// `http://127.0.0.1:PORT/`.
    public let baseURL: URL
    private let prefix: URL
    private let process: ChildProcess

    /// Starts lighttpd serving `root`. Waits until lighttpd itself listens (``LoopbackLaunch``, a
    /// new port when one was taken); throws with its error log when it does not.
    public init(root: URL) async throws {
        prefix = FileManager.default.temporaryDirectory.appending(path: "fdl-lighttpd-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let prefix = prefix
        let launched = try await LoopbackLaunch.start("lighttpd (Debian package lighttpd)") { ports in
            let process = try Self.start(root: root, prefix: prefix, port: ports[0])
            return (process, LoopbackLaunch.Watch(process, diagnostics: {
                (try? String(contentsOf: prefix.appending(path: "error.log"), encoding: .utf8)) ?? ""
            }))
        }
        process = launched.server
        port = UInt16(launched.ports[0])
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// The URL of `name` under the served directory.
    public func url(_ name: String) -> URL { baseURL.appending(path: name) }

    private static func start(root: URL, prefix: URL, port: Int) throws -> ChildProcess {
        let config = """
            server.document-root = "\(root.path)"
            server.bind = "127.0.0.1"
            server.port = \(port)
            server.errorlog = "\(prefix.path)/error.log"
            server.modules = ( )
            # A file replaced by a test is seen at once (the default caches stat() for a second).
            server.stat-cache-engine = "disable"
            mimetype.assign = ( "" => "application/octet-stream" )
            """
        let configURL = prefix.appending(path: "lighttpd-\(port).conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        do {
            return try ChildProcess("/usr/sbin/lighttpd", ["-D", "-f", configURL.path])
        } catch {
            throw TestFailure("cannot run /usr/sbin/lighttpd (Debian package lighttpd): \(error)")
        }
    }

    /// Stops lighttpd (SIGKILL) and reaps it.
    public func stop() { process.kill() }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }
}
