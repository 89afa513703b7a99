import FileDownloadTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server, nginx and an output directory for one fleet test, and the helpers the
/// fleet tests share: queue files, start workers, read the queue and nginx's log.
final class FleetTestbed: Sendable {
    let postgres: PostgresServer
    let nginx: NginxServer
    let out: TemporaryDirectory

    private init(postgres: PostgresServer, nginx: NginxServer, out: TemporaryDirectory) {
        self.postgres = postgres
        self.nginx = nginx
        self.out = out
    }

    /// Runs `body` with a fresh PostgreSQL, nginx (`slowRate` for files under `slow/`) and output
    /// directory, and stops them all afterwards.
    static func with(slowRate: String = "512k", _ body: (FleetTestbed) async throws -> Void) async throws {
        let postgres = try await PostgresServer()
        defer { postgres.stop() }
        try await NginxServer.withServer(slowRate: slowRate) { nginx, out in
            try await body(FleetTestbed(postgres: postgres, nginx: nginx, out: out))
        }
    }

    /// The environment a worker or `fdl add` gets: the password in PGPASSWORD.
    var environment: [String: String?] { ["PGPASSWORD": postgres.password] }

    /// Serves `count` files of different sizes and contents under `prefix` and returns their
    /// names and contents.
    func serveFiles(_ count: Int, prefix: String = "files", size: (Int) -> Int = { 1_000 + ($0 * 37) % 3_000 }) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for index in 0..<count {
            let name = String(format: "f%05d.bin", index)
            var data = sampleBytes(size(index), seed: UInt8(truncatingIfNeeded: index))
            data.append(contentsOf: Array("\(index)".utf8))  // no two files alike
            files[name] = try nginx.serve("\(prefix)/\(name)", data)
        }
        return files
    }

    /// Queues every file with `fdl add --postgres URL -i LIST` (destination: its name).
    func queue(_ files: [String: Data], prefix: String = "files") async throws {
        let list = out.file("list.txt").path
        try files.keys.sorted().map { "\(nginx.url("\(prefix)/\($0)"))\n  out=\($0)" }.joined(separator: "\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        let added = try await FDLProcess.run(["add", "--postgres", postgres.url, "-i", list], environment: environment)
        #expect(added.status == 0, "stdout: \(added.stdout) stderr: \(added.stderr)")
        try FileManager.default.removeItem(atPath: list)
    }

    /// Starts `fdl worker` into the shared output directory and waits until it claims.
    /// `directory` is under the output directory; `shared` gives `--shared-dir`.
    func startWorker(_ node: String, jobs: Int = 8, lease: Int = 10, directory: String = "files",
                     shared: Bool = true) async throws -> FDLProcess {
        let worker = try FDLProcess(["worker", "--postgres", postgres.url, "-d", out.path(directory)] + (shared ? ["--shared-dir"] : [])
                                    + ["--node", node, "-j", "\(jobs)", "--lease", "\(lease)", "--poll", "0.2"],
                                    environment: environment)
        try await worker.waitForOutput(containing: "fdl worker: claiming from")
        return worker
    }

    /// How many downloads of the queue have `state`.
    func count(_ state: String) throws -> Int {
        Int(try postgres.psql("SELECT count(*) FROM downloads WHERE state = '\(state)'")) ?? -1
    }

    /// Waits (bounded) until `total` downloads are completed.
    func awaitCompleted(_ total: Int, limit: Duration = .seconds(480), workers: [FDLProcess]) async throws {
        try await poll("\(total) downloads completed", limit: limit, interval: .milliseconds(200)) {
            for worker in workers where !worker.process.isRunning && worker.process.endingSignal != SIGKILL {
                Issue.record("a worker ended: \(worker.stderr)")
                return true
            }
            return (try? count("completed")) == total
        }
    }

    /// Stops `workers` with SIGTERM and expects each to end cleanly.
    func stop(_ workers: [FDLProcess]) async {
        for worker in workers { worker.send(SIGTERM) }
        for worker in workers {
            let status = await worker.exitStatus()
            #expect(status == 0, "worker: \(worker.stderr)")
        }
    }

    /// Expects every file once at its destination, byte for byte, and nothing else there.
    func expectDelivered(_ files: [String: Data]) throws {
        let directory = out.path("files")
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(present == Set(files.keys), "extra: \(present.subtracting(files.keys).sorted().prefix(10)), missing: \(Set(files.keys).subtracting(present).sorted().prefix(10))")
        var wrong: [String] = []
        for (name, data) in files where (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))) != data {
            wrong.append(name)
        }
        #expect(wrong.isEmpty, "not byte-exact: \(wrong.sorted().prefix(10))")
    }

    /// One request of nginx's access log: the path, when it started and ended (seconds since 1970).
    struct Fetch {
        var path: String
        var start: Double
        var end: Double
    }

    /// The GET requests of nginx's access log under `prefix`.
    func fetches(prefix: String = "files") -> [Fetch] {
        nginx.accessLog.compactMap { line in
            guard let request = line.split(separator: "\"").dropFirst().first,
                  case let parts = request.split(separator: " "), parts.count == 3, parts[0] == "GET",
                  parts[1].hasPrefix("/\(prefix)/"),
                  let msec = Self.value("msec=", in: line), let took = Self.value("request_time=", in: line) else { return nil }
            return Fetch(path: String(parts[1]), start: msec - took, end: msec)
        }
    }

    private static func value(_ key: String, in line: String) -> Double? {
        guard let range = line.range(of: key) else { return nil }
        return Double(line[range.upperBound...].prefix { $0 == "." || $0.isNumber })
    }

    /// Expects that no file was fetched by two requests at overlapping times (nginx's clock, ms):
    /// no download was worked by two workers at once.
    func expectNoOverlappingFetches(prefix: String = "files") {
        var overlapping: [String] = []
        for (path, requests) in Dictionary(grouping: fetches(prefix: prefix), by: \.path) where requests.count > 1 {
            let sorted = requests.sorted { $0.start < $1.start }
            for (earlier, later) in zip(sorted, sorted.dropFirst()) where later.start < earlier.end - 0.001 {
                overlapping.append("\(path): \(earlier.start)-\(earlier.end) and \(later.start)-\(later.end)")
            }
        }
        #expect(overlapping.isEmpty, "fetched twice at once: \(overlapping.prefix(10))")
    }
}
