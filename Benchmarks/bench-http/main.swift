// bench-http: downloads through Downloader + HTTPTransport for Benchmarks/http.sh.
//
//   bench-http one URL OUT            one file; prints seconds and MB/s
//   bench-http many LIST DIR N        every URL in LIST (one a line) into DIR, N at a time; prints files/s
//   bench-http slow LIST DIR          every URL in LIST at once (a slow server); prints the count done
//   bench-http cancel URL N           N times: start URL (a slow one), cancel after the first bytes,
//                                     and time how long until transfer returns; prints median and max
//
// Environment: FDL_RAW=1 uses the transport alone (no Downloader), FDL_NO_SYNC=1 makes the
// Downloader skip its fsync before the rename, FDL_BUFFER sets the receive buffer in bytes,
// FDL_IO_THREADS the transport's I/O threads.
// Peak memory is measured from outside (/usr/bin/time -v). Not a test: no assertions beyond
// "every download completed", which it checks and reports through the exit status.
import FileDownload
import FileDownloadHTTP
import Foundation

@main
struct BenchHTTP {
    static func main() async throws {
        let args = CommandLine.arguments
        guard args.count >= 4 else {
            FileHandle.standardError.write(Data("usage: bench-http one URL OUT | many LIST DIR N | slow LIST DIR\n".utf8))
            exit(2)
        }
        switch args[1] {
        case "one":
            let out = URL(fileURLWithPath: args[3])
            let start = ContinuousClock.now
            try await run([(URL(string: args[2])!, out)], concurrency: 1)
            let seconds = seconds(since: start)
            let size = (try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? NSNumber)?.doubleValue ?? 0
            print(String(format: "one: %.0f bytes in %.3f s = %.1f MB/s", size, seconds, size / seconds / 1e6))
        case "many", "slow":
            let urls = try String(contentsOfFile: args[2], encoding: .utf8).split(separator: "\n").map { URL(string: String($0))! }
            let dir = URL(fileURLWithPath: args[3])
            let concurrency = args[1] == "slow" ? urls.count : Int(args.count > 4 ? args[4] : "16") ?? 16
            let jobs = urls.enumerated().map { ($0.element, dir.appendingPathComponent("f\($0.offset)")) }
            let start = ContinuousClock.now
            try await run(jobs, concurrency: concurrency)
            let seconds = seconds(since: start)
            print(String(format: "%@: %d files in %.3f s = %.0f files/s", args[1], jobs.count, seconds, Double(jobs.count) / seconds))
        case "cancel":
            try await cancelLatency(URL(string: args[2])!, rounds: Int(args[3]) ?? 50)
        default:
            FileHandle.standardError.write(Data("unknown mode \(args[1])\n".utf8))
            exit(2)
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start) / .seconds(1)
    }

    /// The transport configuration; `FDL_BUFFER` overrides the receive buffer size (bytes).
    static var configuration: HTTPTransport.Configuration {
        var configuration = HTTPTransport.Configuration()
        if let text = ProcessInfo.processInfo.environment["FDL_BUFFER"], let size = Int(text) {
            configuration.receiveBufferSize = size
        }
        if let text = ProcessInfo.processInfo.environment["FDL_IO_THREADS"], let count = Int(text) {
            configuration.ioThreads = count
        }
        return configuration
    }

    /// Downloads every job, `concurrency` at a time, and fails unless all complete. With
    /// `FDL_RAW=1` the transport alone writes the files (no Downloader: no fsync, rename, events).
    static func run(_ jobs: [(URL, URL)], concurrency: Int) async throws {
        if ProcessInfo.processInfo.environment["FDL_RAW"] == "1" {
            try await runRaw(jobs, concurrency: concurrency)
            return
        }
        var transports = TransportRegistry()
        transports.register(try HTTPTransport(configuration: configuration), for: "http", "https")
        // FDL_NO_SYNC=1: no fsync before the rename (what curl and aria2c do).
        let synchronizes = ProcessInfo.processInfo.environment["FDL_NO_SYNC"] != "1"
        let downloader = Downloader(
            configuration: DownloaderConfiguration(maxConcurrentDownloads: concurrency,
                                                   retryPolicy: .none, progressInterval: .seconds(1),
                                                   synchronizesFiles: synchronizes),
            transports: transports)
        let events = downloader.events()
        for (i, job) in jobs.enumerated() {
            try await downloader.start(id: "b\(i)", url: job.0, destination: job.1)
        }
        var left = jobs.count
        var failed = 0
        for await event in events {
            switch event {
            case .completed: left -= 1
            case .failed(let id, let error, _):
                left -= 1
                failed += 1
                FileHandle.standardError.write(Data("\(id): \(error)\n".utf8))
            default: break
            }
            if left == 0 { break }
        }
        await downloader.shutdown()
        if failed > 0 {
            FileHandle.standardError.write(Data("\(failed) downloads failed\n".utf8))
            exit(1)
        }
    }

    /// The transport alone: `concurrency` transfers at a time into their files.
    static func runRaw(_ jobs: [(URL, URL)], concurrency: Int) async throws {
        let transport = try HTTPTransport(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let (url, file) = jobs[next]
                let id = "r\(next)"
                next += 1
                group.addTask {
                    let sink = try TransferSink(path: file.path, requestedOffset: 0)
                    defer { sink.seal() }
                    try await transport.transfer(TransferRequest(downloadID: id, url: url), into: sink)
                }
            }
            while next < min(concurrency, jobs.count) { add() }
            while try await group.next() != nil {
                if next < jobs.count { add() }
            }
        }
        await transport.shutdown()
    }

    /// Starts a transfer, waits for its first bytes, cancels its task and measures until it returns.
    static func cancelLatency(_ url: URL, rounds: Int) async throws {
        let transport = try HTTPTransport(configuration: configuration)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-http-cancel-\(getpid())")
        defer { try? FileManager.default.removeItem(at: file) }
        var latencies: [Double] = []
        for round in 0..<rounds {
            try? FileManager.default.removeItem(at: file)
            let sink = try TransferSink(path: file.path, requestedOffset: 0)
            let request = TransferRequest(downloadID: "c\(round)", url: url)
            let task = Task { try await transport.transfer(request, into: sink) }
            while sink.fileLength == 0 { try await Task.sleep(for: .milliseconds(1)) }
            let start = ContinuousClock.now
            task.cancel()
            _ = await task.result
            latencies.append(seconds(since: start) * 1000)
            sink.seal()
            if sink.lateWriteAttempts > 0 { print("late writes after cancel in round \(round)") }
        }
        await transport.shutdown()
        latencies.sort()
        print(String(format: "cancel: %d rounds, median %.2f ms, max %.2f ms", rounds, latencies[rounds / 2], latencies.last ?? 0))
    }
}
