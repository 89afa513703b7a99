import FileDownloadTestSupport
import Foundation
import Testing

/// Every script under Benchmarks/ runs here at a tiny size with this build's (debug) fdl and
/// benchmark executables, and so does each benchmark executable no script runs (bench-core,
/// bench-queue, bench-store), so none can rot unnoticed: the script exits 0 (it checked every file it
/// downloaded byte for byte and fails otherwise) and each of its rows carries a number. The figures
/// themselves are the benchmark's, not the test's (no timing is asserted). One script at a time:
/// they contend for the same two cores.
@Suite("Benchmarks at a tiny size", .serialized, .timeLimit(.minutes(10)))
struct BenchmarkScriptTests {
    @Test("Benchmarks/http.sh: every tool's row on the big file, the small files and the slow ones, and the cancellation")
    func http() async throws {
        let output = try await Self.run("http.sh", [
            "BENCH": try Self.executable("bench-http"), "ROUNDS": "1", "BIG_MIB": "4", "SMALL_COUNT": "20",
            "SLOW_COUNT": "4", "SLOW_RATE": "4m", "WRK_SECONDS": "1", "CANCEL_ROUNDS": "3",
        ])
        for label in ["swift-file-download (Downloader: fsync + rename)", "HTTPTransport alone (bench-http, FDL_RAW=1)",
                      "curl -o", "aria2c -x1", "cp", "swift-file-download (Downloader)", "fdl get -j 16 (state in SQLite)",
                      "swift-file-download (Downloader, synchronizesFiles: false)", "HTTPTransport alone",
                      "xargs -P16 curl (batched)", "aria2c -j16", "cp -r", "wrk -t2 -c16: HTTP ceiling, no file written",
                      "aria2c -j4"] {
            Self.expectRow([label], in: output)
        }
        #expect(output.contains("cancel: 3 rounds, median "), "\(output)")
    }

    @Test("Benchmarks/sftp.sh: bench-sftp, bench-sftp --raw, OpenSSH sftp and curl on the big file and the small ones")
    func sftp() async throws {
        let output = try await Self.run("sftp.sh 1", ["BENCH": try Self.executable("bench-sftp"), "BIG_MIB": "2", "SMALL_COUNT": "10"])
        for tool in ["bench-sftp", "bench-sftp-raw", "openssh-sftp", "curl-sftp"] {
            Self.expectRow(["2 MiB file", tool], in: output)
        }
        for tool in ["bench-sftp", "bench-sftp-raw", "openssh-sftp"] {
            Self.expectRow(["10 x 64 KiB", tool], in: output)
        }
    }

    @Test("Benchmarks/ftp.sh: fdl on 1 and 4 connections, curl, wget and aria2c from vsftpd, each byte-exact")
    func ftp() async throws {
        let output = try await Self.run("ftp.sh", ["SIZE_MIB": "2", "CONNECTIONS": "4", "TOOL_TIMEOUT": "60"], limit: .seconds(240))
        let rows = output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let tools = [("fdl", "fdl get -x 1"), ("fdl", "fdl get -x 4"), ("curl", "curl -o"), ("wget", "wget -O"), ("aria2c", "aria2c -x1")]
        for (tool, label) in tools {
            let installed = tool == "fdl" || (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
                .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
            let row = rows.first { $0.count > 1 && $0[1] == label }
            if installed {
                #expect(row.map { $0.dropFirst(2).contains { Double($0) != nil } && $0.last == "ok" } == true,
                        "no byte-exact row with a number for \(label) in:\n\(output)")
            } else {
                #expect(row?.last == "skipped: \(tool) not installed", "no skipped row for \(label) in:\n\(output)")
            }
        }
    }

    @Test("Benchmarks/wan-check.sh: curl direct, through the shaping proxy, and in 8 ranges through it")
    func wanCheck() async throws {
        let output = try await Self.run("wan-check.sh", ["SIZE_MIB": "2", "DELAY_MS": "5"])
        for label in ["nginx direct", "through the proxy", "through the proxy (again)", "8 ranges at once through the proxy"] {
            Self.expectRow([label], in: output)
        }
    }

    @Test("Benchmarks/agent.sh: submitting, event latency, memory beside aria2c and throughput with clients")
    func agent() async throws {
        let output = try await Self.run("agent.sh", [
            "BENCH": try Self.executable("bench-agent"), "COUNT": "20", "LATENCY_COUNT": "10", "CLIENTS": "2", "RUNNING": "2",
            "FILE_MIB": "1", "ROUNDS": "1",
        ])
        for label in ["agent API, started, batches of 1,000 (`POST /v1/downloads` with an array)",
                      "agent API, started, one `POST /v1/downloads` each (8 at a time)", "in-process `Downloader.start`",
                      "agent API, `\"start\": false`, batches of 1,000", "in-process `Downloader.add`",
                      "aria2c `aria2.addUri` (JSON-RPC over HTTP, 8 at a time)",
                      "through the agent (POST, then the server-sent event)", "in-process (`add`, then `events()`)",
                      "fdl agent", "aria2c --enable-rpc", "no client", "2 clients following the event stream (with progress)",
                      "2 clients streaming, each reading the summary and the list's first page once"] {
            Self.expectRow([label], in: output)
        }
    }

    @Test("Benchmarks/agent-start.sh: the agent's start over a store of finished downloads")
    func agentStart() async throws {
        let output = try await Self.run("agent-start.sh", ["COUNT": "100"])
        Self.expectRow([try FDLProcess.executable], in: output)
    }

    @Test("Benchmarks/fleet.sh: claims per second and fdl worker processes on one PostgreSQL queue")
    func fleet() async throws {
        let output = try await Self.run("fleet.sh", ["FILES": "40", "CLAIM_ROWS": "200", "CLAIM_SECONDS": "1", "RUN_SECONDS": "120"])
        for row in ["1", "4", "16"] { Self.expectRow([row], in: output) }
        #expect(output.contains("| workers | seconds | files/s |"), "\(output)")
    }

    @Test("Benchmarks/segments.sh: fdl's rows byte-exact in each case, every peer's row, a missing peer's row skipped")
    func segments() async throws {
        let output = try await Self.run("segments.sh", [
            "SIZE_MIB": "4", "LOOPBACK_MIB": "4", "DELAY_MS": "2", "CONNECTIONS": "4", "ROUNDS": "1", "TOOL_TIMEOUT": "60",
        ], limit: .seconds(180))
        let rows = output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        // HTTP through the proxy, SFTP through it, and loopback: one row each, with seconds (its third
        // cell; a failed run has "-") and the SHA-256 check passed.
        for label in ["fdl get -x 4", "fdl get -x 1", "fdl get (automatic connections)"] {
            let found = rows.filter { $0.first == label }
            #expect(found.count == 3, "\(label): \(found.count) rows, not 3, in:\n\(output)")
            for row in found {
                #expect(row.count > 2 && Double(row[2]) != nil && row.last == "ok", "\(row) in:\n\(output)")
            }
        }
        for label in ["aria2c -x4 -s4", "curl (one connection)", "4 × curl -r (ranges at once): the proxy's ceiling",
                      "OpenSSH sftp -b (one connection)", "4 × curl -r sftp:// (ranges at once, through the proxy)"] {
            Self.expectRow([label], in: output)
        }
        let peers = [("axel", "axel -n 4"), ("lftp", "lftp pget -n 4"), ("lftp", "lftp pget -n 4 sftp://"),
                     ("rclone", "rclone copyto :http: --multi-thread-streams 4"), ("rclone", "rclone copyto :sftp: --multi-thread-streams 4")]
        for (tool, label) in peers {
            let installed = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
                .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
            if installed {
                Self.expectRow([label], in: output)
            } else {
                #expect(rows.contains { $0.first == label && $0.last == "skipped: \(tool) not installed" },
                        "no skipped row for \(label) in:\n\(output)")
            }
        }
    }

    @Test("Benchmarks/s3.sh: fdl and aws s3 cp against its moto server, a byte-exact row for each")
    func s3() async throws {
        let output = try await Self.run("s3.sh", ["SIZE_MIB": "1", "CONNECTIONS": "2", "TOOL_TIMEOUT": "120"], limit: .seconds(540))
        Self.expectByteExactRows(["fdl get -x 1", "fdl get -x 2", "aws s3 cp"], of: "1 MiB", in: output)
    }

    @Test("Benchmarks/rate-limit.sh: fdl, curl and aria2c against its nginx, a byte-exact row for each")
    func rateLimit() async throws {
        let output = try await Self.run("rate-limit.sh", ["SIZES_MIB": "1", "CONNECTIONS": "2", "LIMIT": "8388608", "TOOL_TIMEOUT": "60"])
        Self.expectByteExactRows(["fdl get --limit-rate -x 1", "fdl get --limit-rate -x 2", "curl --limit-rate",
                                  "aria2c --max-download-limit -x1 -s1", "aria2c --max-download-limit -x2 -s2"],
                                 of: "1 MiB", in: output)
    }

    @Test("bench-core: the Downloader and the raw transport on 200 downloads, every one completed")
    func benchCore() async throws {
        let output = try await Self.runExecutable("bench-core", ["200", "8", "4096"])
        #expect(output.contains("completed 200, failed 0"), "\(output)")
        for phase in ["raw transport:", "downloader:", "overhead:", "CPU time:"] {
            #expect(output.split(separator: "\n").contains { $0.hasPrefix(phase) && $0.contains(" µs per ") }, "no \(phase) in:\n\(output)")
        }
    }

    @Test("bench-queue: 500 queued downloads restored, 20 run, then counted and listed")
    func benchQueue() async throws {
        let output = try await Self.runExecutable("bench-queue", ["500", "4", "20"])
        for line in ["restore() returned after ", "20 completed ", "countsByState ", "page of 100 waiting "] {
            #expect(output.contains(line), "no \(line) in:\n\(output)")
        }
    }

    @Test("bench-store: every store's row for 50 records")
    func benchStore() async throws {
        let scratch = try TemporaryDirectory("fdl-bench-store")
        defer { scratch.remove() }
        let output = try await Self.runExecutable("bench-store", ["--count", "50", "--directory", scratch.file("stores").path])
        for store in ["InMemoryDownloadStore", "SQLiteDownloadStore .processCrash", "SQLiteDownloadStore .powerLoss"] {
            Self.expectRow([store], in: output)
        }
    }

    // MARK: running a script

    /// The path of this build's executable `name` (fdl's directory: the test build made both).
    static func executable(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: try FDLProcess.executable).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("\(path) is missing: build with `swift build --build-tests`")
        }
        return path
    }

    /// Runs Benchmarks/`script` (with its arguments) from the package root with `settings` (and FDL, this build's fdl) in a
    /// proxy-free environment; expects exit status 0 and returns what it printed.
    static func run(_ script: String, _ settings: [String: String], limit: Duration = .seconds(240)) async throws -> String {
        let scratch = try TemporaryDirectory("fdl-bench-script")
        defer { scratch.remove() }
        let log = scratch.file("output.txt").path
        var environment = ProxyFreeEnvironment.of()
        environment["FDL"] = try FDLProcess.executable
        environment.merge(settings) { _, new in new }
        let status = try await ChildProcess.run(["/bin/bash", "-c", "bash Benchmarks/\(script) > '\(log)' 2>&1"],
                                                environment: environment, directory: FDLInstallTests.packageRoot,
                                                limit: limit).status
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "Benchmarks/\(script) exited \(status):\n\(output)")
        return output
    }

    /// Runs this build's benchmark executable `name` with `arguments` in a scratch directory; expects
    /// exit status 0 and returns what it printed.
    static func runExecutable(_ name: String, _ arguments: [String]) async throws -> String {
        let scratch = try TemporaryDirectory("fdl-bench-executable")
        defer { scratch.remove() }
        let log = scratch.file("output.txt").path
        let command = ([try executable(name)] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let status = try await ChildProcess.run(["/bin/bash", "-c", "\(command) > '\(log)' 2>&1"],
                                                environment: ProxyFreeEnvironment.of(), directory: scratch.path,
                                                limit: .seconds(120)).status
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(name) exited \(status):\n\(output)")
        return output
    }

    /// Expects, for each of `tools`, a Markdown row `| size | tool |` that ends `| ok |` (the
    /// script checked the file byte for byte).
    static func expectByteExactRows(_ tools: [String], of size: String, in output: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        for tool in tools {
            let row = output.split(separator: "\n").first { $0.hasPrefix("| \(size) | \(tool) |") }
            #expect(row?.hasSuffix("| ok |") == true, "no byte-exact row for \(tool) in:\n\(output)", sourceLocation: sourceLocation)
        }
    }

    /// Expects a Markdown row whose first cells are `leading` and which has a number in a later cell.
    static func expectRow(_ leading: [String], in output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let row = output.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
            .first { $0.starts(with: leading) }
        #expect(row?.dropFirst(leading.count).contains { Double($0) != nil } == true,
                "no row with a number for \(leading) in:\n\(output)", sourceLocation: sourceLocation)
    }
}
