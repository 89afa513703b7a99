// The core's own overhead: 10,000 downloads through MockTransport, no network, no delays.
//
//   swift run -c release bench-core [count] [concurrency] [size]
//
// Prints one line per phase: wall time, per-download cost and peak RSS. "raw" moves the same bytes
// through the same transport straight into sinks (no Downloader), so the difference is what the
// Downloader itself costs per download (queue, states, events, files, validation, rename).
import FileDownload
import FileDownloadMock
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system) of the process so far, in seconds: on a busy machine the wall time
/// measures the neighbours, the CPU time what this process did.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.count > 0 ? arguments[0] : 10_000
let concurrency = arguments.count > 1 ? arguments[1] : 64
let size = arguments.count > 2 ? arguments[2] : 16 * 1024
// FDL_BENCH_NO_FSYNC=1 measures the Downloader without the fsyncs that make completion crash-safe.
let synchronize = ProcessInfo.processInfo.environment["FDL_BENCH_NO_FSYNC"] != "1"

let root = FileManager.default.temporaryDirectory.appendingPathComponent("fdl-bench-core-\(getpid())")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

let mock = MockTransport()
let urls = (0..<count).map { URL(string: "mock://bench/f\($0)")! }
for (i, url) in urls.enumerated() {
    mock.serve(url, MockResource(.seeded(seed: UInt64(i), size: Int64(size)), chunkSize: 16 * 1024))
}

// Raw: the transport into sinks, `concurrency` at a time, no Downloader. FDL_BENCH_SKIP_RAW=1 skips
// it, to profile the Downloader phase alone (`perf record`); the overhead lines then mean nothing.
let skipsRaw = ProcessInfo.processInfo.environment["FDL_BENCH_SKIP_RAW"] == "1"
let rawDir = root.appendingPathComponent("raw")
try FileManager.default.createDirectory(at: rawDir, withIntermediateDirectories: true)
let rawCPUStart = cpuSeconds()
let rawStart = ContinuousClock.now
await withTaskGroup(of: Void.self) { group in
    var next = 0
    func add() {
        let i = next
        next += 1
        group.addTask {
            let path = rawDir.appendingPathComponent("f\(i)").path
            guard let sink = try? TransferSink(path: path, requestedOffset: 0) else { return }
            try? await mock.transfer(TransferRequest(downloadID: "r\(i)", url: urls[i]), into: sink)
            sink.seal()
            rename(path, path + ".done")
        }
    }
    for _ in 0..<(skipsRaw ? 0 : min(concurrency, count)) { add() }
    while await group.next() != nil { if next < count { add() } }
}
let rawTime = ContinuousClock.now - rawStart
let rawCPU = cpuSeconds() - rawCPUStart
let rawRSS = peakRSSMiB()

// Through the Downloader.
var transports = TransportRegistry()
transports.register(mock, for: "mock")
let downloader = Downloader(
    configuration: DownloaderConfiguration(maxConcurrentDownloads: concurrency,
                                           downloadsDirectory: root.appendingPathComponent("dl"),
                                           synchronizesFiles: synchronize),
    transports: transports
)
let events = downloader.events()
let cpuStart = cpuSeconds()
let start = ContinuousClock.now
// Started and followed from a task, not from this top-level code: top-level code runs on the main
// actor, which on Linux is served by a dispatch thread of its own, so every `start` call and every
// event would wake a thread (measured: 19 context switches per download instead of 1, and twice
// the wall time). The raw phase's transfers run in child tasks on the pool; only its loop's
// `group.next()` is on the main actor. Run from a detached task as well, the raw phase was slower,
// not faster (50 against 38 µs a file, and the Downloader phase after it 135 against 102 µs, same
// build, back to back), so it stays as it was: the faster raw phase makes the overhead larger, not
// smaller.
let (queued, completed, failed, eventCount) = try await Task.detached {
    for (i, url) in urls.enumerated() {
        try await downloader.start(id: "d\(i)", url: url)
    }
    let queued = ContinuousClock.now - start
    var completed = 0
    var failed = 0
    var eventCount = 0
    for await event in events {
        eventCount += 1
        if case .completed = event { completed += 1 }
        if case .failed(let id, let error, _) = event {
            failed += 1
            print("failed \(id): \(error)")
        }
        if completed + failed == count { break }
    }
    return (queued, completed, failed, eventCount)
}.value
let wall = ContinuousClock.now - start
let cpu = cpuSeconds() - cpuStart
let rss = peakRSSMiB()
await downloader.shutdown()

func ms(_ d: Duration) -> String { String(format: "%.0f ms", d.seconds * 1000) }
func us(_ d: Duration, _ n: Int) -> String { String(format: "%.1f µs", d.seconds * 1e6 / Double(n)) }
extension Duration { var seconds: Double { self / .seconds(1) } }

print("downloads: \(count) of \(size) bytes, \(concurrency) at a time, fsync \(synchronize ? "on" : "off"); completed \(completed), failed \(failed), events \(eventCount)")
print("raw transport:  \(ms(rawTime)) wall, \(us(rawTime, count)) per file, peak RSS \(String(format: "%.1f", rawRSS)) MiB")
print("downloader:     \(ms(wall)) wall (\(ms(queued)) to queue all), \(us(wall, count)) per download, peak RSS \(String(format: "%.1f", rss)) MiB")
print(String(format: "overhead:       %.1f µs per download (downloader - raw), ratio %.2fx",
             (wall.seconds - rawTime.seconds) * 1e6 / Double(count), wall.seconds / rawTime.seconds))
print(String(format: "CPU time:       raw %.1f µs per file, downloader %.1f µs per download, overhead %.1f µs (ratio %.2fx)",
             rawCPU * 1e6 / Double(count), cpu * 1e6 / Double(count), (cpu - rawCPU) * 1e6 / Double(count), cpu / rawCPU))
