public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Apache httpd 2.4 (Debian's `apache2`) serving a directory on 127.0.0.1, started by the test in
/// the foreground with a configuration of its own in a temporary directory (its own pid file,
/// error log and mutexes; no system service), and stopped by ``stop()``.
///
/// It answers differently from nginx where it matters to a download: a range past the end is a
/// 416 without `Content-Range`, and `AddEncoding gzip .gz` (a common setup) serves a `.tar.gz`
/// with `Content-Encoding: gzip`.
public final class ApacheServer: Sendable {
    public let port: UInt16
    /// `http://127.0.0.1:PORT/`.
    public let baseURL: URL
    private let prefix: URL
    private let process: ChildProcess

    /// Starts Apache serving `root`: `.gz` files with `Content-Encoding: gzip` (`AddEncoding gzip
    /// .gz`), and when `kibibytesPerSecond` is given each response to a request without `Range`
    /// at about that rate (mod_ratelimit), so that a test can interrupt a download midway while
    /// its resume (a range) comes at full speed.
    /// Waits until Apache itself listens (``LoopbackLaunch``, a new port when one was taken);
    /// throws with its error log when it does not.
    public init(root: URL, kibibytesPerSecond: Int? = nil) async throws {
        prefix = FileManager.default.temporaryDirectory.appending(path: "fdl-apache-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let prefix = prefix
        let launched = try await LoopbackLaunch.start("Apache httpd (Debian package apache2)") { ports in
            let process = try Self.start(root: root, rate: kibibytesPerSecond, prefix: prefix, port: ports[0])
            return (process, LoopbackLaunch.Watch(
                pid: { process.processIdentifier }, isRunning: { process.isRunning },
                diagnostics: { (try? String(contentsOf: prefix.appending(path: "error.log"), encoding: .utf8)) ?? "" },
                stop: { Self.stop(process) }))
        }
        process = launched.server
        port = UInt16(launched.ports[0])
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
    }

    /// The URL of `name` under the served directory.
    public func url(_ name: String) -> URL { baseURL.appending(path: name) }

    private static func start(root: URL, rate: Int?, prefix: URL, port: Int) throws -> ChildProcess {
        let modules = "/usr/lib/apache2/modules"
        let limit = rate.map { """
                <If "-z req('Range')">
                    SetOutputFilter RATE_LIMIT
                    SetEnv rate-limit \($0)
                </If>
            """ } ?? ""
        let config = """
            ServerRoot \(prefix.path)
            LoadModule mpm_event_module \(modules)/mod_mpm_event.so
            LoadModule authz_core_module \(modules)/mod_authz_core.so
            LoadModule mime_module \(modules)/mod_mime.so
            LoadModule dir_module \(modules)/mod_dir.so
            LoadModule ratelimit_module \(modules)/mod_ratelimit.so
            LoadModule env_module \(modules)/mod_env.so
            Listen 127.0.0.1:\(port)
            ServerName 127.0.0.1
            PidFile \(prefix.path)/httpd.pid
            ErrorLog \(prefix.path)/error.log
            LogLevel warn
            LogFormat "%U %>s %B \\"%{Range}i\\"" ranges
            CustomLog \(prefix.path)/access.log ranges
            Mutex file:\(prefix.path) default
            StartServers 1
            ServerLimit 1
            ThreadsPerChild 16
            MaxRequestWorkers 16
            DocumentRoot \(root.path)
            TypesConfig /dev/null
            AddEncoding gzip .gz
            AddType application/x-tar .tar
            <Directory />
                Require all granted
            \(limit)
            </Directory>
            """
        let configURL = prefix.appending(path: "httpd-\(port).conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        do {
            return try ChildProcess("/usr/sbin/apache2", ["-f", configURL.path, "-DFOREGROUND"],
                                    environment: ["APACHE_RUN_DIR": prefix.path, "APACHE_LOG_DIR": prefix.path,
                                                  "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        } catch {
            throw TestFailure("cannot run /usr/sbin/apache2 (Debian package apache2): \(error)")
        }
    }

    /// SIGTERM (Apache's parent stops its children), then SIGKILL when it has not ended in 10 s.
    private static func stop(_ process: ChildProcess) {
        guard process.isRunning else { return }
        process.send(SIGTERM)
        if (try? process.waitBlocking(limit: .seconds(10))) == nil { process.kill() }
    }

    /// The access log, one line per response as it ended: `path status body-bytes "range"`
    /// (`-` for no range), in order.
    public func accessLog() throws -> [String] {
        let url = prefix.appending(path: "access.log")
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// Stops Apache and its worker process.
    public func stop() { Self.stop(process) }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }
}
